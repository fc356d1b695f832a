package io.outboxrelay.relay.testing;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * A third-party class as its class file has it, read from the jar on the test classpath: the
 * strings it holds and a fingerprint of what chosen methods do. Tests pin the places where the
 * relay copies or relies on a library's internals with it, so that an upgrade that changes them
 * fails a test that says what to re-check.
 *
 * <p>The fingerprint is a SHA-256 over each chosen method's name, descriptor and instructions, with
 * every constant-pool operand resolved to what it names (a method's owner, name and descriptor, a
 * string's text) and the numbers of lambda bodies left out: it changes when the method's code
 * changes, not when unrelated parts of the class move the constant pool, nor with line numbers.
 * Stateless once read; thread-safe.
 */
public final class UpstreamClass {

  private final String name;
  private final String location;
  private final Object[] pool;
  private final byte[] tags;
  private final Map<String, byte[]> code = new LinkedHashMap<>(); // name+descriptor -> bytecode
  private final List<int[]> bootstrapMethods = new ArrayList<>(); // handle, then arguments

  private UpstreamClass(String name, byte[] bytes, String location) {
    this.name = name;
    this.location = location;
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      if (in.readInt() != 0xCAFEBABE) {
        throw new IllegalArgumentException(name + " is not a class file");
      }
      in.readUnsignedShort();
      in.readUnsignedShort();
      int count = in.readUnsignedShort();
      pool = new Object[count];
      tags = new byte[count];
      for (int i = 1; i < count; i++) {
        int tag = in.readUnsignedByte();
        tags[i] = (byte) tag;
        switch (tag) {
          case 1 -> pool[i] = in.readUTF();
          case 3 -> pool[i] = in.readInt();
          case 4 -> pool[i] = in.readFloat();
          case 5, 6 -> {
            pool[i] = tag == 5 ? in.readLong() : in.readDouble();
            i++; // takes two slots
          }
          case 7, 8, 16, 19, 20 -> pool[i] = new int[] {in.readUnsignedShort()};
          case 9, 10, 11, 12, 17, 18 ->
              pool[i] = new int[] {in.readUnsignedShort(), in.readUnsignedShort()};
          case 15 -> pool[i] = new int[] {in.readUnsignedByte(), in.readUnsignedShort()};
          default -> throw new IllegalArgumentException("constant tag " + tag + " in " + name);
        }
      }
      in.readUnsignedShort(); // access
      in.readUnsignedShort(); // this
      in.readUnsignedShort(); // super
      in.skipBytes(2 * in.readUnsignedShort()); // interfaces
      int fields = in.readUnsignedShort();
      for (int i = 0; i < fields; i++) {
        in.skipBytes(6);
        skipAttributes(in);
      }
      int methods = in.readUnsignedShort();
      for (int i = 0; i < methods; i++) {
        in.readUnsignedShort();
        String key = utf(in.readUnsignedShort()) + utf(in.readUnsignedShort());
        int attributes = in.readUnsignedShort();
        for (int a = 0; a < attributes; a++) {
          String attribute = utf(in.readUnsignedShort());
          byte[] body = in.readNBytes(in.readInt());
          if (attribute.equals("Code")) {
            DataInputStream c = new DataInputStream(new ByteArrayInputStream(body));
            c.skipBytes(4);
            code.put(key, c.readNBytes(c.readInt()));
          }
        }
      }
      int attributes = in.readUnsignedShort();
      for (int a = 0; a < attributes; a++) {
        String attribute = utf(in.readUnsignedShort());
        byte[] body = in.readNBytes(in.readInt());
        if (attribute.equals("BootstrapMethods")) {
          DataInputStream c = new DataInputStream(new ByteArrayInputStream(body));
          int n = c.readUnsignedShort();
          for (int m = 0; m < n; m++) {
            int handle = c.readUnsignedShort();
            int args = c.readUnsignedShort();
            int[] entry = new int[1 + args];
            entry[0] = handle;
            for (int k = 0; k < args; k++) {
              entry[1 + k] = c.readUnsignedShort();
            }
            bootstrapMethods.add(entry);
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Reads a class from the test classpath without initialising it.
   *
   * @param className the binary name, e.g. {@code io.debezium.pipeline.ErrorHandler}
   * @return the class file
   * @throws AssertionError when no such class is on the classpath
   */
  public static UpstreamClass of(String className) {
    String resource = className.replace('.', '/') + ".class";
    ClassLoader loader = UpstreamClass.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new AssertionError(className + " is not on the classpath (renamed or moved?)");
      }
      return new UpstreamClass(
          className, in.readAllBytes(), String.valueOf(loader.getResource(resource)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads a class from the test classpath. */
  public static UpstreamClass of(Class<?> type) {
    return of(type.getName());
  }

  /** Where the class file was read from (its jar, with the version in its name). */
  public String location() {
    return location;
  }

  /**
   * The texts of the class's string constants, including the templates of string concatenations
   * (where each inserted value is the character U+0001).
   */
  public Set<String> strings() {
    Set<String> out = new LinkedHashSet<>();
    for (int i = 1; i < pool.length; i++) {
      if (tags[i] == 8) {
        out.add(utf(((int[]) pool[i])[0]));
      }
    }
    // String concatenation templates are bootstrap arguments: UTF-8 constants reached only from
    // there. Every UTF-8 constant is searched, which also finds them.
    for (int i = 1; i < pool.length; i++) {
      if (tags[i] == 1) {
        out.add((String) pool[i]);
      }
    }
    return out;
  }

  /**
   * Whether a string constant of the class contains {@code text}.
   *
   * @param text the text, as the relay matches it
   * @return true when some constant contains it
   */
  public boolean holdsText(String text) {
    return strings().stream().anyMatch(s -> s.contains(text));
  }

  /**
   * The fingerprint of the methods with these names (every overload), and of the lambda bodies they
   * contain.
   *
   * @param methods method names
   * @return 16 hexadecimal digits
   * @throws AssertionError when a name matches no method
   */
  public String fingerprint(String... methods) {
    StringBuilder listing = new StringBuilder();
    for (String method : methods) {
      Predicate<String> chosen =
          key -> key.startsWith(method + "(") || key.startsWith("lambda$" + method + "$");
      boolean found = false;
      for (Map.Entry<String, byte[]> m : code.entrySet()) {
        if (chosen.test(m.getKey())) {
          found = true;
          listing.append(withoutLambdaNumbers(m.getKey())).append('\n');
          instructions(m.getValue()).forEach(i -> listing.append("  ").append(i).append('\n'));
        }
      }
      if (!found) {
        throw new AssertionError(name + " has no method " + method + " (renamed or removed?)");
      }
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(listing.toString().getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The instructions of a method, one per element, constant operands resolved. */
  private List<String> instructions(byte[] b) {
    List<String> out = new ArrayList<>();
    int pc = 0;
    while (pc < b.length) {
      int op = b[pc] & 0xff;
      int length = length(b, pc, op);
      StringBuilder i = new StringBuilder(Integer.toString(op));
      if (refersToPool(op)) {
        int index = op == 0x12 ? b[pc + 1] & 0xff : ((b[pc + 1] & 0xff) << 8) | (b[pc + 2] & 0xff);
        i.append(' ').append(withoutLambdaNumbers(describe(index)));
        for (int k = pc + 3; k < pc + length; k++) {
          i.append(' ').append(b[k]); // invokeinterface count, multianewarray dimensions
        }
      } else {
        for (int k = pc + 1; k < pc + length; k++) {
          i.append(' ').append(b[k]);
        }
      }
      out.add(i.toString());
      pc += length;
    }
    return out;
  }

  private static boolean refersToPool(int op) {
    return (op >= 0x12 && op <= 0x14)
        || (op >= 0xb2 && op <= 0xbb)
        || op == 0xbd
        || op == 0xc0
        || op == 0xc1
        || op == 0xc5;
  }

  private static int length(byte[] b, int pc, int op) {
    if (op == 0xaa || op == 0xab) {
      int p = (pc + 4) & ~3; // operands start at the next multiple of four
      if (op == 0xaa) {
        int low = readInt(b, p + 4);
        int high = readInt(b, p + 8);
        return p + 12 + 4 * (high - low + 1) - pc;
      }
      return p + 8 + 8 * readInt(b, p + 4) - pc;
    }
    if (op == 0xc4) {
      return (b[pc + 1] & 0xff) == 0x84 ? 6 : 4;
    }
    if (op == 0x10 || op == 0x12 || (op >= 0x15 && op <= 0x19) || (op >= 0x36 && op <= 0x3a)) {
      return 2;
    }
    if (op == 0xa9 || op == 0xbc) {
      return 2;
    }
    if (op == 0x11
        || op == 0x13
        || op == 0x14
        || op == 0x84
        || (op >= 0x99 && op <= 0xa8)
        || (op >= 0xb2 && op <= 0xb8)
        || op == 0xbb
        || op == 0xbd
        || op == 0xc0
        || op == 0xc1
        || op == 0xc6
        || op == 0xc7) {
      return 3;
    }
    if (op == 0xc5) {
      return 4;
    }
    if (op == 0xb9 || op == 0xba || op == 0xc8 || op == 0xc9) {
      return 5;
    }
    return 1;
  }

  private static int readInt(byte[] b, int p) {
    return ((b[p] & 0xff) << 24)
        | ((b[p + 1] & 0xff) << 16)
        | ((b[p + 2] & 0xff) << 8)
        | (b[p + 3] & 0xff);
  }

  private String describe(int index) {
    int[] refs = pool[index] instanceof int[] r ? r : null;
    return switch (tags[index]) {
      case 1 -> (String) pool[index];
      case 3, 4, 5, 6 -> String.valueOf(pool[index]);
      case 7, 16, 19, 20 -> utf(refs[0]);
      case 8 -> '"' + utf(refs[0]) + '"';
      case 9, 10, 11 -> describe(refs[0]) + "." + describe(refs[1]);
      case 12 -> utf(refs[0]) + ":" + utf(refs[1]);
      case 15 -> "handle " + refs[0] + " " + describe(refs[1]);
      case 17, 18 -> "dynamic " + describe(refs[1]) + bootstrap(refs[0]);
      default -> "?";
    };
  }

  /** A bootstrap method and its arguments (a lambda's body, a concatenation's template). */
  private String bootstrap(int index) {
    if (index >= bootstrapMethods.size()) {
      return "";
    }
    StringBuilder s = new StringBuilder();
    for (int ref : bootstrapMethods.get(index)) {
      s.append(" [").append(describe(ref)).append(']');
    }
    return s.toString();
  }

  private String utf(int index) {
    return (String) pool[index];
  }

  private static String withoutLambdaNumbers(String s) {
    return s.replaceAll("(lambda\\$[^$]+)\\$\\d+", "$1");
  }

  private static void skipAttributes(DataInputStream in) throws IOException {
    int attributes = in.readUnsignedShort();
    for (int a = 0; a < attributes; a++) {
      in.skipBytes(2);
      in.skipBytes(in.readInt());
    }
  }
}
