package dev.psflow.exec.timeline;

import java.util.Map;

/** The little JSON a trace needs: strings, numbers and flat objects of them. */
final class Json {
  private Json() {}

  static void string(StringBuilder b, String s) {
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    b.append('"');
  }

  static void object(StringBuilder b, Map<String, ?> m) {
    b.append('{');
    boolean first = true;
    for (Map.Entry<String, ?> e : m.entrySet()) {
      if (!first) {
        b.append(',');
      }
      first = false;
      string(b, e.getKey());
      b.append(':');
      Object v = e.getValue();
      if (v instanceof Number n) {
        b.append(n);
      } else {
        string(b, String.valueOf(v));
      }
    }
    b.append('}');
  }
}
