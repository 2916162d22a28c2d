package dev.psflow.distributed.grpc;

import java.util.Arrays;

/**
 * The key identifiers of two X.509 extensions, read from their DER encoding as
 * {@link java.security.cert.X509Extension#getExtensionValue} gives it (an OCTET STRING around the
 * extension's value). Only what {@link MemberTrust} compares: anything unexpected reads as null.
 * Not BouncyCastle's {@code AuthorityKeyIdentifier}, although it is on the class path: a task loads
 * no BouncyCastle class, whose signed jars the JVM would verify at the first one (see {@link
 * TaskKeyManager}). Stateless.
 */
final class DerOctets {
  private static final int OCTET_STRING = 0x04;
  private static final int SEQUENCE = 0x30;
  /** AuthorityKeyIdentifier's {@code [0] IMPLICIT KeyIdentifier}. */
  private static final int KEY_IDENTIFIER = 0x80;

  private DerOctets() {}

  /** SubjectKeyIdentifier ::= KeyIdentifier (an OCTET STRING): its bytes, or null. */
  static byte[] subjectKeyIdentifier(byte[] extensionValue) {
    return contents(contents(extensionValue, OCTET_STRING), OCTET_STRING);
  }

  /** AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] OPTIONAL, ... }: the key identifier's bytes, or null. */
  static byte[] authorityKeyIdentifier(byte[] extensionValue) {
    return contents(contents(contents(extensionValue, OCTET_STRING), SEQUENCE), KEY_IDENTIFIER);
  }

  /** The contents of the element at the start of {@code der} when its tag is {@code tag}, else null. */
  private static byte[] contents(byte[] der, int tag) {
    if (der == null || der.length < 2 || (der[0] & 0xff) != tag) {
      return null;
    }
    int length = der[1] & 0xff;
    int start = 2;
    if (length >= 0x80) {
      int octets = length & 0x7f;
      if (octets == 0 || octets > 3 || der.length < 2 + octets) {
        return null;
      }
      length = 0;
      for (int i = 0; i < octets; i++) {
        length = (length << 8) | (der[2 + i] & 0xff);
      }
      start += octets;
    }
    return start + length <= der.length ? Arrays.copyOfRange(der, start, start + length) : null;
  }
}
