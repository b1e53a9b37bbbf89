/*
 * snapgate from Java: verify a payment callback, sign payment calls, take a token.
 *
 * Java 17 and the JDK only: no Maven or Gradle dependency. Runs as a single file:
 *
 *   export SNAPGATE_CLIENT_SECRET=...          # the merchant's client secret
 *   java SnapgateRecipe.java verify-callback --path /webhook/payment-qr-notification \
 *       --x-timestamp "$TS" --x-signature "$SIG" --x-partner-id "$PID" --body-file body.json
 *   java SnapgateRecipe.java sign-payment --method POST --path /api/snap/v1.0/qr/qr-mpm-generate \
 *       --token "$TOKEN" --timestamp "$TS" --body-file body.json
 *   java SnapgateRecipe.java minify --body-file pretty.json > body.json   # the bytes to send
 *   java SnapgateRecipe.java sign-token --timestamp "$TS"          # needs SNAPGATE_CLIENT_KEY
 *   java SnapgateRecipe.java timestamp                               # now, Asia/Jakarta
 *   java SnapgateRecipe.java create-qris --partner-reference-no INV-1 --amount 10000.00
 *
 * Exit codes: 0 done (callback valid), 1 refused or failed, 2 bad usage.
 * See docs/recipes/README.md, docs/protocol.md and docs/callbacks.md.
 *
 * The rule behind every signature here: hash the BYTES that travel on the wire. In a servlet
 * that is request.getInputStream().readAllBytes() (Spring: @RequestBody byte[]), read before
 * anything maps it to an object. Never hash objectMapper.writeValueAsString(parsed): Jackson
 * orders, escapes and formats numbers its own way, so the hash, and the signature, no longer
 * match. Never go through a String with the platform charset either: bytes in, bytes hashed.
 * When sending, serialise once, sign those bytes, send those bytes.
 */

import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

public final class SnapgateRecipe {
  static final String TOKEN_PATH = "/api/snap/v1.0/access-token/b2b";
  static final String QRIS_GENERATE_PATH = "/api/snap/v1.0/qr/qr-mpm-generate";
  // How far X-TIMESTAMP of a callback may be from now, either way (the merchant SDK's default).
  // Too old and too new are both refused, so a captured callback cannot be replayed later.
  static final long TOLERANCE_SEC = 300;
  // What the merchant does with its order for each latestTransactionStatus.
  static final Map<String, String> ACTIONS = Map.of(
      "00", "PAID", "06", "FAILED", "04", "REFUNDED", "05", "CANCELED", "01", "WAIT", "02", "WAIT", "03", "WAIT");

  /** The callback is not to be trusted: answer it 401 (or 400) and change nothing. */
  static final class Refused extends Exception {
    Refused(String reason) {
      super(reason);
    }
  }

  /** Bad command line: exit 2. */
  static final class UsageError extends RuntimeException {
    UsageError(String message) {
      super(message);
    }
  }

  // --- the signatures ---------------------------------------------------------------------

  /** Lowercase hex SHA-256 of the body bytes exactly as sent or received (empty array for no body). */
  static String sha256Hex(byte[] rawBody) throws GeneralSecurityException {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(rawBody));
  }

  static byte[] hmac(String algorithm, String secret, String data) throws GeneralSecurityException {
    Mac mac = Mac.getInstance(algorithm);
    mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), algorithm));
    return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * X-SIGNATURE of POST /api/snap/v1.0/access-token/b2b:
   * base64(HMAC-SHA256(client secret, "&lt;clientKey&gt;|&lt;X-TIMESTAMP&gt;")), the timestamp exactly as sent.
   * The body ({"grantType":"client_credentials"}) is not signed.
   */
  static String tokenSignature(String clientSecret, String clientKey, String timestamp) throws GeneralSecurityException {
    return Base64.getEncoder().encodeToString(hmac("HmacSHA256", clientSecret, clientKey + "|" + timestamp));
  }

  /**
   * SNAP's Minify(body): the JSON text without the whitespace outside string values.
   *
   * <p>Spaces, tabs, CR and LF between tokens go; everything else stays as written (key order,
   * escapes such as \/ or \u00e9, number forms, spaces inside strings). Works on the UTF-8 bytes:
   * a multi-byte character never contains an ASCII byte.
   */
  static byte[] minify(byte[] rawBody) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(rawBody.length);
    boolean inString = false;
    boolean escaped = false;
    for (byte c : rawBody) {
      if (inString) {
        out.write(c);
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') inString = false;
      } else if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
        out.write(c);
        inString = c == '"';
      }
    }
    return out.toByteArray();
  }

  /**
   * METHOD:path:accessToken:lowerhex(sha256(body bytes)):X-TIMESTAMP
   *
   * <p>path is the request target exactly as sent (path and query, no host). rawBody is the body
   * exactly as sent: the gateway hashes the bytes it receives and minifies nothing. SNAP asks for
   * the minified body, so minify() first, then sign AND send those minified bytes.
   */
  static String paymentStringToSign(String method, String path, String accessToken, byte[] rawBody, String timestamp)
      throws GeneralSecurityException {
    return method.toUpperCase(java.util.Locale.ROOT) + ":" + path + ":" + accessToken + ":" + sha256Hex(rawBody)
        + ":" + timestamp;
  }

  /** X-SIGNATURE of a payment API call: base64(HMAC-SHA512(client secret, string to sign)). */
  static String paymentSignature(
      String clientSecret, String method, String path, String accessToken, byte[] rawBody, String timestamp)
      throws GeneralSecurityException {
    String data = paymentStringToSign(method, path, accessToken, rawBody, timestamp);
    return Base64.getEncoder().encodeToString(hmac("HmacSHA512", clientSecret, data));
  }

  /**
   * hmac-sha512 callbacks: POST:&lt;path&gt;:&lt;X-PARTNER-ID&gt;:lowerhex(sha256(body bytes)):&lt;X-TIMESTAMP&gt;
   *
   * <p>path is the target the gateway sent (path and query of your callback URL: in a servlet,
   * getRequestURI() plus "?" + getQueryString() when there is one). Behind a proxy that rewrites
   * paths, use the original one.
   */
  static String callbackStringToSign(String path, String partnerId, byte[] rawBody, String timestamp)
      throws GeneralSecurityException {
    return "POST:" + path + ":" + partnerId + ":" + sha256Hex(rawBody) + ":" + timestamp;
  }

  static final Pattern TIMESTAMP = Pattern.compile(
      "(\\d{4})-(\\d{2})-(\\d{2})T(\\d{2}):(\\d{2}):(\\d{2})(?:\\.(\\d{1,9}))?(Z|([+-])(\\d{2}):?(\\d{2}))");

  /**
   * Epoch milliseconds of an ISO 8601 date-time with seconds and a zone, or null.
   * Accepts 2026-11-23T10:00:05+07:00, 2026-11-23T03:00:05.123Z and +0700.
   */
  static Long parseSnapTimestamp(String value) {
    Matcher m = TIMESTAMP.matcher(value);
    if (!m.matches()) return null;
    int offsetMin = 0;
    if (!m.group(8).equals("Z")) {
      int offH = Integer.parseInt(m.group(10));
      int offM = Integer.parseInt(m.group(11));
      if (offH > 14 || offM > 59) return null;
      offsetMin = (offH * 60 + offM) * (m.group(9).equals("-") ? -1 : 1);
    }
    LocalDateTime local;
    try {
      // LocalDateTime.of refuses 2026-02-30, 24:00:00 and leap seconds.
      local = LocalDateTime.of(
          Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)),
          Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)), Integer.parseInt(m.group(6)));
    } catch (java.time.DateTimeException e) {
      return null;
    }
    String fraction = m.group(7) == null ? "000" : (m.group(7) + "00").substring(0, 3);
    return local.toEpochSecond(ZoneOffset.UTC) * 1000 + Integer.parseInt(fraction) - offsetMin * 60_000L;
  }

  /** Now as a SNAP X-TIMESTAMP in Asia/Jakarta time: 2026-11-23T10:00:05+07:00. */
  static String jakartaTimestamp() {
    return OffsetDateTime.now(ZoneOffset.ofHours(7)).format(DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ssxxx"));
  }

  /**
   * Checks a hmac-sha512 payment callback and returns its body, or throws Refused.
   *
   * @param rawBody the body bytes as received, never a re-serialised object
   */
  static Map<String, Object> verifyCallback(
      String clientSecret, String partnerId, String method, String path, String timestamp, String signature,
      String headerPartnerId, byte[] rawBody, long nowMs, long toleranceSec)
      throws Refused, GeneralSecurityException {
    if (!method.equalsIgnoreCase("POST")) throw new Refused("method not allowed");
    if (timestamp.isEmpty()) throw new Refused("missing X-TIMESTAMP");
    if (signature.isEmpty()) throw new Refused("missing X-SIGNATURE");
    if (headerPartnerId.isEmpty()) throw new Refused("missing X-PARTNER-ID");
    Long timestampMs = parseSnapTimestamp(timestamp);
    if (timestampMs == null) throw new Refused("invalid X-TIMESTAMP");
    if (Math.abs(nowMs - timestampMs) > toleranceSec * 1000) throw new Refused("Timestamp Out Of Range");
    if (!headerPartnerId.equals(partnerId)) throw new Refused("Unknown Partner");

    // The header values exactly as received, and the raw bytes: nothing re-formatted.
    byte[] expected = hmac("HmacSHA512", clientSecret, callbackStringToSign(path, headerPartnerId, rawBody, timestamp));
    byte[] provided;
    try {
      provided = Base64.getDecoder().decode(signature);
    } catch (IllegalArgumentException e) {
      provided = new byte[0];
    }
    // MessageDigest.isEqual is constant time: how much of a forged signature matched must not show.
    if (!MessageDigest.isEqual(expected, provided)) throw new Refused("Invalid Signature");

    // Only now is the body trusted enough to parse.
    Object parsed;
    try {
      parsed = new Json(new String(rawBody, StandardCharsets.UTF_8)).parseDocument();
    } catch (IllegalArgumentException e) {
      throw new Refused("body is not JSON");
    }
    if (!(parsed instanceof Map)) throw new Refused("body is not a JSON object");
    @SuppressWarnings("unchecked")
    Map<String, Object> body = (Map<String, Object>) parsed;
    for (String field : List.of("originalReferenceNo", "originalPartnerReferenceNo", "latestTransactionStatus")) {
      if (!(body.get(field) instanceof String s) || s.isEmpty()) throw new Refused("invalid " + field);
    }
    if (!ACTIONS.containsKey((String) body.get("latestTransactionStatus"))) {
      throw new Refused("invalid latestTransactionStatus");
    }
    if (!(body.get("amount") instanceof Map<?, ?> amount)
        || !(amount.get("value") instanceof String)
        || !(amount.get("currency") instanceof String)) {
      throw new Refused("invalid amount");
    }
    return body;
  }

  // --- a live call: token, then a signed QRIS ---------------------------------------------

  static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1) // no h2c upgrade dance with a plain-HTTP gateway
      .connectTimeout(Duration.ofSeconds(10))
      .build();

  /** POSTs exactly rawBody. */
  static HttpResponse<String> post(String url, Map<String, String> headers, byte[] rawBody)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(rawBody));
    headers.forEach(request::header);
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  static HttpResponse<String> createQris(
      String baseUrl, String clientKey, String clientSecret, String partnerId, String reference, String amount)
      throws IOException, InterruptedException, GeneralSecurityException {
    // 1. The B2B access token.
    String timestamp = jakartaTimestamp();
    Map<String, String> tokenHeaders = new LinkedHashMap<>();
    tokenHeaders.put("Content-Type", "application/json");
    tokenHeaders.put("X-CLIENT-KEY", clientKey);
    tokenHeaders.put("X-TIMESTAMP", timestamp);
    tokenHeaders.put("X-SIGNATURE", tokenSignature(clientSecret, clientKey, timestamp));
    HttpResponse<String> token = post(
        baseUrl + TOKEN_PATH, tokenHeaders, "{\"grantType\":\"client_credentials\"}".getBytes(StandardCharsets.UTF_8));
    if (token.statusCode() != 200) {
      throw new IOException("token request: HTTP " + token.statusCode() + " " + token.body());
    }
    @SuppressWarnings("unchecked")
    String accessToken = (String) ((Map<String, Object>) new Json(token.body()).parseDocument()).get("accessToken");

    // 2. The payment call. Serialise ONCE, minified (no whitespace between tokens): these bytes
    // are hashed and these bytes are sent.
    byte[] body = ("{\"partnerReferenceNo\":" + Json.quote(reference)
        + ",\"amount\":{\"value\":" + Json.quote(amount) + ",\"currency\":\"IDR\"}}").getBytes(StandardCharsets.UTF_8);
    timestamp = jakartaTimestamp();
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put("Content-Type", "application/json");
    headers.put("Authorization", "Bearer " + accessToken);
    headers.put("X-TIMESTAMP", timestamp);
    headers.put("X-SIGNATURE", paymentSignature(clientSecret, "POST", QRIS_GENERATE_PATH, accessToken, body, timestamp));
    headers.put("X-PARTNER-ID", partnerId);
    // Digits only, unique per merchant and day: a retry with the same id gets the same answer.
    headers.put("X-EXTERNAL-ID", String.format("%d%06d", System.currentTimeMillis(), new SecureRandom().nextInt(1_000_000)));
    headers.put("CHANNEL-ID", "95221");
    return post(baseUrl + QRIS_GENERATE_PATH, headers, body);
  }

  // --- a minimal JSON reader (the JDK has none; in an application, use Jackson or Gson) ----

  static final class Json {
    private final String s;
    private int i;

    Json(String text) {
      s = text;
    }

    Object parseDocument() {
      Object v = value();
      skipSpace();
      if (i != s.length()) throw new IllegalArgumentException("trailing data");
      return v;
    }

    private void skipSpace() {
      while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) i++;
    }

    private char next() {
      if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
      return s.charAt(i++);
    }

    private void expect(String word) {
      if (!s.startsWith(word, i)) throw new IllegalArgumentException("bad literal");
      i += word.length();
    }

    private Object value() {
      skipSpace();
      if (i >= s.length()) throw new IllegalArgumentException("unexpected end");
      char c = s.charAt(i);
      switch (c) {
        case '{': {
          i++;
          Map<String, Object> map = new LinkedHashMap<>();
          skipSpace();
          if (i < s.length() && s.charAt(i) == '}') {
            i++;
            return map;
          }
          while (true) {
            skipSpace();
            if (next() != '"') throw new IllegalArgumentException("expected a key");
            String key = string();
            skipSpace();
            if (next() != ':') throw new IllegalArgumentException("expected :");
            map.put(key, value());
            skipSpace();
            char d = next();
            if (d == '}') return map;
            if (d != ',') throw new IllegalArgumentException("expected , or }");
          }
        }
        case '[': {
          i++;
          List<Object> list = new ArrayList<>();
          skipSpace();
          if (i < s.length() && s.charAt(i) == ']') {
            i++;
            return list;
          }
          while (true) {
            list.add(value());
            skipSpace();
            char d = next();
            if (d == ']') return list;
            if (d != ',') throw new IllegalArgumentException("expected , or ]");
          }
        }
        case '"':
          i++;
          return string();
        case 't':
          expect("true");
          return Boolean.TRUE;
        case 'f':
          expect("false");
          return Boolean.FALSE;
        case 'n':
          expect("null");
          return null;
        default: {
          Matcher m = NUMBER.matcher(s).region(i, s.length());
          if (!m.lookingAt()) throw new IllegalArgumentException("unexpected character");
          i = m.end();
          return new java.math.BigDecimal(m.group());
        }
      }
    }

    private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9]\\d*)(?:\\.\\d+)?(?:[eE][+-]?\\d+)?");

    /** The rest of a string whose opening quote was read. */
    private String string() {
      StringBuilder out = new StringBuilder();
      while (true) {
        char c = next();
        if (c == '"') return out.toString();
        if (c < 0x20) throw new IllegalArgumentException("control character in string");
        if (c != '\\') {
          out.append(c);
          continue;
        }
        char e = next();
        switch (e) {
          case '"', '\\', '/' -> out.append(e);
          case 'b' -> out.append('\b');
          case 'f' -> out.append('\f');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 't' -> out.append('\t');
          case 'u' -> {
            if (i + 4 > s.length()) throw new IllegalArgumentException("bad \\u escape");
            try {
              out.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
            } catch (NumberFormatException x) {
              throw new IllegalArgumentException("bad \\u escape");
            }
            i += 4;
          }
          default -> throw new IllegalArgumentException("bad escape");
        }
      }
    }

    /** A JSON string literal. */
    static String quote(String value) {
      StringBuilder out = new StringBuilder("\"");
      for (char c : value.toCharArray()) {
        if (c == '"' || c == '\\') out.append('\\').append(c);
        else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
        else out.append(c);
      }
      return out.append('"').toString();
    }
  }

  // --- the command line -------------------------------------------------------------------

  static String env(String name, String fallback) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) value = fallback;
    if (value == null || value.isEmpty()) throw new UsageError("set " + name);
    return value;
  }

  /** --name value pairs; every name in required must be given. */
  static Map<String, String> options(String[] args, List<String> required, List<String> optional) {
    Map<String, String> out = new LinkedHashMap<>();
    for (int k = 1; k < args.length; k += 2) {
      String name = args[k].startsWith("--") ? args[k].substring(2) : "";
      if (!required.contains(name) && !optional.contains(name)) throw new UsageError("unknown option " + args[k]);
      if (k + 1 >= args.length) throw new UsageError(args[k] + " needs a value");
      out.put(name, args[k + 1]);
    }
    for (String name : required) {
      if (!out.containsKey(name)) throw new UsageError("--" + name + " is required");
    }
    return out;
  }

  /** The exact bytes of a file, or of stdin for "-": no newline added or stripped. */
  static byte[] readBody(String name) {
    try {
      return name.equals("-") ? System.in.readAllBytes() : Files.readAllBytes(Path.of(name));
    } catch (IOException e) {
      throw new UsageError("cannot read " + name);
    }
  }

  static int run(String[] args, PrintStream out) throws Exception {
    String command = args.length > 0 ? args[0] : "";
    switch (command) {
      case "timestamp" -> {
        options(args, List.of(), List.of());
        out.println(jakartaTimestamp());
      }
      case "minify" -> {
        Map<String, String> o = options(args, List.of("body-file"), List.of());
        out.writeBytes(minify(readBody(o.get("body-file")))); // bytes, no newline added
      }
      case "sign-token" -> {
        Map<String, String> o = options(args, List.of("timestamp"), List.of());
        out.println(tokenSignature(env("SNAPGATE_CLIENT_SECRET", null), env("SNAPGATE_CLIENT_KEY", null), o.get("timestamp")));
      }
      case "sign-payment" -> {
        Map<String, String> o = options(args, List.of("method", "path", "token", "timestamp", "body-file"), List.of());
        byte[] raw = readBody(o.get("body-file"));
        out.println(paymentSignature(
            env("SNAPGATE_CLIENT_SECRET", null), o.get("method"), o.get("path"), o.get("token"), raw, o.get("timestamp")));
      }
      case "verify-callback" -> {
        Map<String, String> o = options(
            args,
            List.of("path", "x-timestamp", "x-signature", "x-partner-id", "body-file"),
            List.of("method", "now", "tolerance-sec"));
        long nowMs = System.currentTimeMillis();
        if (o.containsKey("now")) {
          Long parsed = parseSnapTimestamp(o.get("now"));
          if (parsed == null) throw new UsageError("--now must be an ISO 8601 date-time with a zone");
          nowMs = parsed;
        }
        long tolerance;
        try {
          tolerance = Long.parseLong(o.getOrDefault("tolerance-sec", String.valueOf(TOLERANCE_SEC)));
        } catch (NumberFormatException e) {
          throw new UsageError("--tolerance-sec must be a number of seconds");
        }
        String secret = env("SNAPGATE_CLIENT_SECRET", null);
        String partnerId = env("SNAPGATE_PARTNER_ID", null);
        Map<String, Object> body;
        try {
          body = verifyCallback(secret, partnerId, o.getOrDefault("method", "POST"), o.get("path"), o.get("x-timestamp"),
              o.get("x-signature"), o.get("x-partner-id"), readBody(o.get("body-file")), nowMs, tolerance);
        } catch (Refused e) {
          System.err.println("refused: " + e.getMessage());
          return 1;
        }
        String status = (String) body.get("latestTransactionStatus");
        Map<?, ?> amount = (Map<?, ?>) body.get("amount");
        out.print("valid\n"
            + "latestTransactionStatus=" + status + "\n"
            + "action=" + ACTIONS.get(status) + "\n"
            + "originalReferenceNo=" + body.get("originalReferenceNo") + "\n"
            + "originalPartnerReferenceNo=" + body.get("originalPartnerReferenceNo") + "\n"
            + "amount=" + amount.get("value") + " " + amount.get("currency") + "\n");
      }
      case "create-qris" -> {
        Map<String, String> o = options(args, List.of("partner-reference-no", "amount"), List.of());
        String baseUrl = env("SNAPGATE_URL", "http://127.0.0.1:8080").replaceAll("/+$", "");
        HttpResponse<String> r;
        try {
          r = createQris(baseUrl, env("SNAPGATE_CLIENT_KEY", null), env("SNAPGATE_CLIENT_SECRET", null),
              env("SNAPGATE_PARTNER_ID", null), o.get("partner-reference-no"), o.get("amount"));
        } catch (IOException | IllegalArgumentException | ClassCastException e) {
          System.err.println("failed: " + e.getMessage());
          return 1;
        }
        if (r.statusCode() != 200) {
          System.err.println("failed: HTTP " + r.statusCode() + " " + r.body());
          return 1;
        }
        out.println(r.body());
      }
      default -> throw new UsageError("commands: verify-callback, sign-payment, minify, sign-token, timestamp, create-qris");
    }
    return 0;
  }

  public static void main(String[] args) throws Exception {
    // "\n" line ends and UTF-8 whatever the platform and locale say.
    PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8) {
      @Override
      public void println(String x) {
        print(x + "\n");
      }
    };
    int code;
    try {
      code = run(args, out);
    } catch (UsageError e) {
      System.err.println("usage: " + e.getMessage());
      code = 2;
    }
    out.flush();
    System.exit(code);
  }
}
