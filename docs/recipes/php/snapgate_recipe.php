<?php
/**
 * snapgate from PHP: verify a payment callback, sign payment calls, take a token.
 *
 * PHP 7.4+ with its bundled extensions (hash, json) only: nothing to install with Composer.
 *
 *   export SNAPGATE_CLIENT_SECRET=...          # the merchant's client secret
 *   php snapgate_recipe.php verify-callback --path /webhook/payment-qr-notification \
 *       --x-timestamp "$TS" --x-signature "$SIG" --x-partner-id "$PID" --body-file body.json
 *   php snapgate_recipe.php sign-payment --method POST --path /api/snap/v1.0/qr/qr-mpm-generate \
 *       --token "$TOKEN" --timestamp "$TS" --body-file body.json
 *   php snapgate_recipe.php minify --body-file pretty.json > body.json   # the bytes to send
 *   php snapgate_recipe.php sign-token --timestamp "$TS"          # needs SNAPGATE_CLIENT_KEY
 *   php snapgate_recipe.php timestamp                               # now, Asia/Jakarta
 *   php snapgate_recipe.php create-qris --partner-reference-no INV-1 --amount 10000.00
 *
 * Exit codes: 0 done (callback valid), 1 refused or failed, 2 bad usage.
 * See docs/recipes/README.md, docs/protocol.md and docs/callbacks.md.
 *
 * The rule behind every signature here: hash the BYTES that travel on the wire. In a callback
 * handler that is file_get_contents('php://input'), read before anything decodes it. Never hash
 * json_encode(json_decode($input)): json_encode writes "INV\/2026" and "Siti \u00d1" where the
 * gateway may have sent "INV/2026" and "Siti Ñ", so the hash, and the signature, no longer match.
 * When sending, json_encode once, sign that string, send that string.
 * In Laravel that is $request->getContent(). Code that cannot change and hashes
 * json_encode($request->all()) sees null where the body had "" (ConvertEmptyStringsToNull):
 * ask the operator for callbackJson `php-laravel`, whose bytes already write "" as null.
 */

declare(strict_types=1);

const TOKEN_PATH = '/api/snap/v1.0/access-token/b2b';
const QRIS_GENERATE_PATH = '/api/snap/v1.0/qr/qr-mpm-generate';
// How far X-TIMESTAMP of a callback may be from now, either way (the merchant SDK's default).
// Too old and too new are both refused, so a captured callback cannot be replayed later.
const TOLERANCE_SEC = 300;
// What the merchant does with its order for each latestTransactionStatus.
const ACTIONS = ['00' => 'PAID', '06' => 'FAILED', '04' => 'REFUNDED', '05' => 'CANCELED', '01' => 'WAIT', '02' => 'WAIT', '03' => 'WAIT'];

/** The callback is not to be trusted: answer it 401 (or 400) and change nothing. */
final class Refused extends RuntimeException {}

/** Bad command line: exit 2. */
final class UsageError extends Exception {}

// --- the signatures ------------------------------------------------------------------------

/** Lowercase hex SHA-256 of the body bytes exactly as sent or received ('' for no body). */
function sha256Hex(string $rawBody): string
{
    return hash('sha256', $rawBody);
}

/**
 * X-SIGNATURE of POST /api/snap/v1.0/access-token/b2b:
 * base64(HMAC-SHA256(client secret, "<clientKey>|<X-TIMESTAMP>")), the timestamp exactly as sent.
 * The body ({"grantType":"client_credentials"}) is not signed.
 */
function tokenSignature(string $clientSecret, string $clientKey, string $timestamp): string
{
    return base64_encode(hash_hmac('sha256', $clientKey . '|' . $timestamp, $clientSecret, true));
}

/**
 * SNAP's Minify(body): the JSON text without the whitespace outside string values.
 *
 * Spaces, tabs, CR and LF between tokens go; everything else stays as written (key order, escapes
 * such as \/ or \u00e9, number forms, spaces inside strings). Works on the UTF-8 bytes: a
 * multi-byte character never contains an ASCII byte.
 */
function minify(string $rawBody): string
{
    $out = '';
    $inString = false;
    $escaped = false;
    for ($i = 0, $n = strlen($rawBody); $i < $n; $i++) {
        $c = $rawBody[$i];
        if ($inString) {
            $out .= $c;
            if ($escaped) {
                $escaped = false;
            } elseif ($c === '\\') {
                $escaped = true;
            } elseif ($c === '"') {
                $inString = false;
            }
        } elseif ($c !== ' ' && $c !== "\t" && $c !== "\r" && $c !== "\n") {
            $out .= $c;
            $inString = $c === '"';
        }
    }
    return $out;
}

/**
 * METHOD:path:accessToken:lowerhex(sha256(body bytes)):X-TIMESTAMP
 *
 * $path is the request target exactly as sent (path and query, no host). $rawBody is the body
 * exactly as sent: the gateway hashes the bytes it receives and minifies nothing. SNAP asks for
 * the minified body, so minify() first, then sign AND send those minified bytes.
 */
function paymentStringToSign(string $method, string $path, string $accessToken, string $rawBody, string $timestamp): string
{
    return strtoupper($method) . ':' . $path . ':' . $accessToken . ':' . sha256Hex($rawBody) . ':' . $timestamp;
}

/** X-SIGNATURE of a payment API call: base64(HMAC-SHA512(client secret, string to sign)). */
function paymentSignature(string $clientSecret, string $method, string $path, string $accessToken, string $rawBody, string $timestamp): string
{
    $data = paymentStringToSign($method, $path, $accessToken, $rawBody, $timestamp);
    return base64_encode(hash_hmac('sha512', $data, $clientSecret, true));
}

/**
 * hmac-sha512 callbacks: POST:<path>:<X-PARTNER-ID>:lowerhex(sha256(body bytes)):<X-TIMESTAMP>
 *
 * $path is the target the gateway sent ($_SERVER['REQUEST_URI']: path and query of your
 * callback URL). Behind a proxy that rewrites paths, use the original one.
 */
function callbackStringToSign(string $path, string $partnerId, string $rawBody, string $timestamp): string
{
    return 'POST:' . $path . ':' . $partnerId . ':' . sha256Hex($rawBody) . ':' . $timestamp;
}

/**
 * Epoch milliseconds of an ISO 8601 date-time with seconds and a zone, or null.
 * Accepts 2026-11-23T10:00:05+07:00, 2026-11-23T03:00:05.123Z and +0700.
 */
function parseSnapTimestamp(string $value): ?int
{
    // \z, not $: in PCRE "$" also matches before a trailing newline.
    $re = '/^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))\z/';
    if (preg_match($re, $value, $m) !== 1) {
        return null;
    }
    [$year, $month, $day, $hour, $minute, $second] = array_map('intval', array_slice($m, 1, 6));
    if (!checkdate($month, $day, $year) || $hour > 23 || $minute > 59 || $second > 59) {
        return null;
    }
    $millis = $m[7] !== '' ? (int) str_pad(substr($m[7], 0, 3), 3, '0') : 0;
    $offsetMin = 0;
    if ($m[8] !== 'Z') {
        $offH = (int) $m[10];
        $offM = (int) $m[11];
        if ($offH > 14 || $offM > 59) {
            return null;
        }
        $offsetMin = ($offH * 60 + $offM) * ($m[9] === '-' ? -1 : 1);
    }
    return gmmktime($hour, $minute, $second, $month, $day, $year) * 1000 + $millis - $offsetMin * 60000;
}

/** Now as a SNAP X-TIMESTAMP in Asia/Jakarta time: 2026-11-23T10:00:05+07:00. */
function jakartaTimestamp(): string
{
    return gmdate('Y-m-d\TH:i:s', time() + 7 * 3600) . '+07:00';
}

/**
 * Checks a hmac-sha512 payment callback and returns its decoded body, or throws Refused.
 *
 * $rawBody must be the body bytes as received: file_get_contents('php://input').
 */
function verifyCallback(
    string $clientSecret,
    string $partnerId,
    string $method,
    string $path,
    string $timestamp,
    string $signature,
    string $headerPartnerId,
    string $rawBody,
    ?int $nowMs = null,
    int $toleranceSec = TOLERANCE_SEC
): array {
    if (strtoupper($method) !== 'POST') {
        throw new Refused('method not allowed');
    }
    foreach (['X-TIMESTAMP' => $timestamp, 'X-SIGNATURE' => $signature, 'X-PARTNER-ID' => $headerPartnerId] as $name => $v) {
        if ($v === '') {
            throw new Refused("missing $name");
        }
    }
    $timestampMs = parseSnapTimestamp($timestamp);
    if ($timestampMs === null) {
        throw new Refused('invalid X-TIMESTAMP');
    }
    $nowMs = $nowMs ?? (int) floor(microtime(true) * 1000);
    if (abs($nowMs - $timestampMs) > $toleranceSec * 1000) {
        throw new Refused('Timestamp Out Of Range');
    }
    if ($headerPartnerId !== $partnerId) {
        throw new Refused('Unknown Partner');
    }

    // The header values exactly as received, and the raw bytes: nothing re-formatted.
    $data = callbackStringToSign($path, $headerPartnerId, $rawBody, $timestamp);
    $expected = hash_hmac('sha512', $data, $clientSecret, true);
    $provided = base64_decode($signature, true); // strict: false on anything that is not base64
    // hash_equals is constant time: how much of a forged signature matched must not show.
    if ($provided === false || !hash_equals($expected, $provided)) {
        throw new Refused('Invalid Signature');
    }

    // Only now is the body trusted enough to decode.
    $body = json_decode($rawBody, true);
    if (!is_array($body) || array_is_list_compat($body)) {
        throw new Refused('body is not a JSON object');
    }
    foreach (['originalReferenceNo', 'originalPartnerReferenceNo', 'latestTransactionStatus'] as $field) {
        if (!isset($body[$field]) || !is_string($body[$field]) || $body[$field] === '') {
            throw new Refused("invalid $field");
        }
    }
    if (!array_key_exists($body['latestTransactionStatus'], ACTIONS)) {
        throw new Refused('invalid latestTransactionStatus');
    }
    $amount = $body['amount'] ?? null;
    if (!is_array($amount) || !is_string($amount['value'] ?? null) || !is_string($amount['currency'] ?? null)) {
        throw new Refused('invalid amount');
    }
    return $body;
}

/** True for a decoded JSON array ([...]) rather than an object ({...}); array_is_list is PHP 8.1+. */
function array_is_list_compat(array $a): bool
{
    return $a !== [] && array_keys($a) === range(0, count($a) - 1);
}

// --- a live call: token, then a signed QRIS ------------------------------------------------

/** POSTs exactly $rawBody; returns [HTTP status, response body]. No cURL needed. */
function post(string $url, array $headers, string $rawBody): array
{
    $lines = [];
    foreach ($headers as $name => $value) {
        $lines[] = "$name: $value";
    }
    $context = stream_context_create(['http' => [
        'method' => 'POST',
        'header' => implode("\r\n", $lines),
        'content' => $rawBody,
        'ignore_errors' => true, // give back 4xx/5xx bodies instead of false
        'timeout' => 30,
    ]]);
    $response = @file_get_contents($url, false, $context);
    if ($response === false) {
        throw new RuntimeException("cannot reach $url");
    }
    // $http_response_header is set by file_get_contents; with redirects, the last status wins.
    $status = 0;
    foreach ($http_response_header as $line) {
        if (preg_match('#^HTTP/\S+ (\d{3})#', $line, $m) === 1) {
            $status = (int) $m[1];
        }
    }
    return [$status, $response];
}

function createQris(string $baseUrl, string $clientKey, string $clientSecret, string $partnerId, string $reference, string $amount): array
{
    // 1. The B2B access token.
    $timestamp = jakartaTimestamp();
    [$status, $raw] = post($baseUrl . TOKEN_PATH, [
        'Content-Type' => 'application/json',
        'X-CLIENT-KEY' => $clientKey,
        'X-TIMESTAMP' => $timestamp,
        'X-SIGNATURE' => tokenSignature($clientSecret, $clientKey, $timestamp),
    ], '{"grantType":"client_credentials"}');
    if ($status !== 200) {
        throw new RuntimeException("token request: HTTP $status $raw");
    }
    $accessToken = json_decode($raw, true)['accessToken'];

    // 2. The payment call. json_encode ONCE (it writes no whitespace: already minified): this
    // string is hashed and this string is sent.
    $body = json_encode(['partnerReferenceNo' => $reference, 'amount' => ['value' => $amount, 'currency' => 'IDR']]);
    $timestamp = jakartaTimestamp();
    return post($baseUrl . QRIS_GENERATE_PATH, [
        'Content-Type' => 'application/json',
        'Authorization' => "Bearer $accessToken",
        'X-TIMESTAMP' => $timestamp,
        'X-SIGNATURE' => paymentSignature($clientSecret, 'POST', QRIS_GENERATE_PATH, $accessToken, $body, $timestamp),
        'X-PARTNER-ID' => $partnerId,
        // Digits only, unique per merchant and day: a retry with the same id gets the same answer.
        'X-EXTERNAL-ID' => sprintf('%d%06d', (int) floor(microtime(true) * 1000), random_int(0, 999999)),
        'CHANNEL-ID' => '95221',
    ], $body);
}

// --- the command line ----------------------------------------------------------------------

function env(string $name, ?string $default = null): string
{
    $value = getenv($name);
    if ($value === false || $value === '') {
        $value = $default;
    }
    if ($value === null || $value === '') {
        throw new UsageError("set $name");
    }
    return $value;
}

/** --name value pairs; every name in $required must be given. */
function options(array $args, array $required, array $optional = []): array
{
    $out = [];
    for ($i = 0; $i < count($args); $i += 2) {
        $name = substr($args[$i], 2);
        if (strncmp($args[$i], '--', 2) !== 0 || !in_array($name, array_merge($required, $optional), true)) {
            throw new UsageError("unknown option {$args[$i]}");
        }
        if (!isset($args[$i + 1])) {
            throw new UsageError("{$args[$i]} needs a value");
        }
        $out[$name] = $args[$i + 1];
    }
    foreach ($required as $name) {
        if (!isset($out[$name])) {
            throw new UsageError("--$name is required");
        }
    }
    return $out;
}

/** The exact bytes of a file, or of stdin for "-": no newline added or stripped. */
function readBody(string $name): string
{
    $raw = @file_get_contents($name === '-' ? 'php://stdin' : $name);
    if ($raw === false) {
        throw new UsageError("cannot read $name");
    }
    return $raw;
}

function main(array $argv): int
{
    $command = $argv[1] ?? '';
    $args = array_slice($argv, 2);
    switch ($command) {
        case 'timestamp':
            options($args, []);
            echo jakartaTimestamp(), "\n";
            return 0;
        case 'minify':
            $o = options($args, ['body-file']);
            echo minify(readBody($o['body-file'])); // bytes, no newline added
            return 0;
        case 'sign-token':
            $o = options($args, ['timestamp']);
            echo tokenSignature(env('SNAPGATE_CLIENT_SECRET'), env('SNAPGATE_CLIENT_KEY'), $o['timestamp']), "\n";
            return 0;
        case 'sign-payment':
            $o = options($args, ['method', 'path', 'token', 'timestamp', 'body-file']);
            $raw = readBody($o['body-file']);
            echo paymentSignature(env('SNAPGATE_CLIENT_SECRET'), $o['method'], $o['path'], $o['token'], $raw, $o['timestamp']), "\n";
            return 0;
        case 'verify-callback':
            $o = options(
                $args,
                ['path', 'x-timestamp', 'x-signature', 'x-partner-id', 'body-file'],
                ['method', 'now', 'tolerance-sec']
            );
            $nowMs = null;
            if (isset($o['now'])) {
                $nowMs = parseSnapTimestamp($o['now']);
                if ($nowMs === null) {
                    throw new UsageError('--now must be an ISO 8601 date-time with a zone');
                }
            }
            $tolerance = $o['tolerance-sec'] ?? (string) TOLERANCE_SEC;
            if (!ctype_digit($tolerance)) {
                throw new UsageError('--tolerance-sec must be a number of seconds');
            }
            $secret = env('SNAPGATE_CLIENT_SECRET');
            $partnerId = env('SNAPGATE_PARTNER_ID');
            $raw = readBody($o['body-file']);
            try {
                $body = verifyCallback(
                    $secret,
                    $partnerId,
                    $o['method'] ?? 'POST',
                    $o['path'],
                    $o['x-timestamp'],
                    $o['x-signature'],
                    $o['x-partner-id'],
                    $raw,
                    $nowMs,
                    (int) $tolerance
                );
            } catch (Refused $e) {
                fwrite(STDERR, 'refused: ' . $e->getMessage() . "\n");
                return 1;
            }
            $status = $body['latestTransactionStatus'];
            echo "valid\n";
            echo "latestTransactionStatus=$status\n";
            echo 'action=' . ACTIONS[$status] . "\n";
            echo "originalReferenceNo={$body['originalReferenceNo']}\n";
            echo "originalPartnerReferenceNo={$body['originalPartnerReferenceNo']}\n";
            echo "amount={$body['amount']['value']} {$body['amount']['currency']}\n";
            return 0;
        case 'create-qris':
            $o = options($args, ['partner-reference-no', 'amount']);
            try {
                [$status, $raw] = createQris(
                    rtrim(env('SNAPGATE_URL', 'http://127.0.0.1:8080'), '/'),
                    env('SNAPGATE_CLIENT_KEY'),
                    env('SNAPGATE_CLIENT_SECRET'),
                    env('SNAPGATE_PARTNER_ID'),
                    $o['partner-reference-no'],
                    $o['amount']
                );
            } catch (RuntimeException $e) {
                fwrite(STDERR, 'failed: ' . $e->getMessage() . "\n");
                return 1;
            }
            if ($status !== 200) {
                fwrite(STDERR, "failed: HTTP $status $raw\n");
                return 1;
            }
            echo $raw, "\n";
            return 0;
        default:
            throw new UsageError('commands: verify-callback, sign-payment, minify, sign-token, timestamp, create-qris');
    }
}

try {
    exit(main($argv));
} catch (UsageError $e) {
    fwrite(STDERR, 'usage: ' . $e->getMessage() . "\n");
    exit(2);
}
