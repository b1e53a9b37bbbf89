#!/usr/bin/env python3
"""snapgate from Python: verify a payment callback, sign payment calls, take a token.

Python 3.8+ and its standard library only: nothing to pip install.

    export SNAPGATE_CLIENT_SECRET=...          # the merchant's client secret
    python3 snapgate_recipe.py verify-callback --path /webhook/payment-qr-notification \\
        --x-timestamp "$TS" --x-signature "$SIG" --x-partner-id "$PID" --body-file body.json
    python3 snapgate_recipe.py sign-payment --method POST --path /api/snap/v1.0/qr/qr-mpm-generate \\
        --token "$TOKEN" --timestamp "$TS" --body-file body.json
    python3 snapgate_recipe.py minify --body-file pretty.json > body.json   # the bytes to send
    python3 snapgate_recipe.py sign-token --timestamp "$TS"          # needs SNAPGATE_CLIENT_KEY
    python3 snapgate_recipe.py timestamp                               # now, Asia/Jakarta
    python3 snapgate_recipe.py create-qris --partner-reference-no INV-1 --amount 10000.00

Exit codes: 0 done (callback valid), 1 refused or failed, 2 bad usage.
See docs/recipes/README.md, docs/protocol.md and docs/callbacks.md.

The rule behind every signature here: hash the BYTES that travel on the wire. Never hash a
json.dumps() of what you parsed (it writes "Siti \\u00d1" where the gateway sent "Siti Ñ", adds
spaces, reorders nothing but changes everything), and never hash a dict you are about to send:
serialise once, sign those bytes, send those bytes.
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import secrets
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timedelta, timezone

TOKEN_PATH = "/api/snap/v1.0/access-token/b2b"
QRIS_GENERATE_PATH = "/api/snap/v1.0/qr/qr-mpm-generate"
# How far X-TIMESTAMP of a callback may be from now, either way (the merchant SDK's default).
# Too old and too new are both refused, so a captured callback cannot be replayed later.
TOLERANCE_SEC = 300

# What the merchant does with its order for each latestTransactionStatus.
ACTIONS = {"00": "PAID", "06": "FAILED", "04": "REFUNDED", "05": "CANCELED", "01": "WAIT", "02": "WAIT", "03": "WAIT"}


class Refused(Exception):
    """The callback is not to be trusted: answer it 401 (or 400) and change nothing."""


# --- the signatures -------------------------------------------------------------------------


def sha256_hex(raw_body: bytes) -> str:
    """Lowercase hex SHA-256 of the body bytes exactly as sent or received (b"" for no body)."""
    return hashlib.sha256(raw_body).hexdigest()


def token_signature(client_secret: str, client_key: str, timestamp: str) -> str:
    """X-SIGNATURE of POST /api/snap/v1.0/access-token/b2b.

    base64(HMAC-SHA256(client secret, "<clientKey>|<X-TIMESTAMP>")), the timestamp exactly as
    sent in X-TIMESTAMP. The body ({"grantType":"client_credentials"}) is not signed.
    """
    string_to_sign = f"{client_key}|{timestamp}"
    mac = hmac.new(client_secret.encode("utf-8"), string_to_sign.encode("utf-8"), hashlib.sha256)
    return base64.b64encode(mac.digest()).decode("ascii")


def minify(raw_body: bytes) -> bytes:
    """SNAP's Minify(body): the JSON text without the whitespace outside string values.

    Spaces, tabs, CR and LF between tokens go; everything else stays as written (key order,
    escapes such as \\/ or \\u00e9, number forms, spaces inside strings). Works on the UTF-8
    bytes: a multi-byte character never contains an ASCII byte.
    """
    out = bytearray()
    in_string = escaped = False
    for b in raw_body:
        if in_string:
            out.append(b)
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash: the next byte is escaped
                escaped = True
            elif b == 0x22:  # closing quote
                in_string = False
        elif b not in b" \t\r\n":
            out.append(b)
            in_string = b == 0x22
    return bytes(out)


def payment_string_to_sign(method: str, path: str, access_token: str, raw_body: bytes, timestamp: str) -> str:
    """METHOD:path:accessToken:lowerhex(sha256(body bytes)):X-TIMESTAMP

    path is the request target exactly as sent (path and query, no host). raw_body is the body
    exactly as sent: the gateway hashes the bytes it receives and minifies nothing. SNAP asks
    for the minified body, so minify() first, then sign AND send those minified bytes.
    """
    return f"{method.upper()}:{path}:{access_token}:{sha256_hex(raw_body)}:{timestamp}"


def payment_signature(
    client_secret: str, method: str, path: str, access_token: str, raw_body: bytes, timestamp: str
) -> str:
    """X-SIGNATURE of a payment API call: base64(HMAC-SHA512(client secret, string to sign))."""
    data = payment_string_to_sign(method, path, access_token, raw_body, timestamp)
    mac = hmac.new(client_secret.encode("utf-8"), data.encode("utf-8"), hashlib.sha512)
    return base64.b64encode(mac.digest()).decode("ascii")


def callback_string_to_sign(path: str, partner_id: str, raw_body: bytes, timestamp: str) -> str:
    """hmac-sha512 callbacks: POST:<path>:<X-PARTNER-ID>:lowerhex(sha256(body bytes)):<X-TIMESTAMP>

    path is the target the gateway sent (path and query of your callback URL, e.g. the raw
    request line target, not a route pattern). Behind a proxy that rewrites paths, use the
    original one.
    """
    return f"POST:{path}:{partner_id}:{sha256_hex(raw_body)}:{timestamp}"


_TIMESTAMP = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))")


def parse_snap_timestamp(value: str):
    """Epoch milliseconds of an ISO 8601 date-time with seconds and a zone, or None.

    Accepts 2026-11-23T10:00:05+07:00, 2026-11-23T03:00:05.123Z and +0700.
    """
    m = _TIMESTAMP.fullmatch(value)
    if not m:
        return None
    year, month, day, hour, minute, second = (int(m.group(i)) for i in range(1, 7))
    millis = int(m.group(7)[:3].ljust(3, "0")) if m.group(7) else 0
    offset_min = 0
    if m.group(8) != "Z":
        off_h, off_m = int(m.group(10)), int(m.group(11))
        if off_h > 14 or off_m > 59:
            return None
        offset_min = (off_h * 60 + off_m) * (-1 if m.group(9) == "-" else 1)
    try:
        utc = datetime(year, month, day, hour, minute, second, tzinfo=timezone.utc)
    except ValueError:  # 2026-02-30, 24:00:00, a leap second...
        return None
    return int(utc.timestamp()) * 1000 + millis - offset_min * 60_000


def jakarta_timestamp() -> str:
    """Now as a SNAP X-TIMESTAMP in Asia/Jakarta time: 2026-11-23T10:00:05+07:00."""
    return datetime.now(timezone(timedelta(hours=7))).strftime("%Y-%m-%dT%H:%M:%S+07:00")


def verify_callback(
    *,
    client_secret: str,
    partner_id: str,
    method: str,
    path: str,
    timestamp: str,
    signature: str,
    header_partner_id: str,
    raw_body: bytes,
    now_ms=None,
    tolerance_sec: int = TOLERANCE_SEC,
) -> dict:
    """Checks a hmac-sha512 payment callback and returns its body, or raises Refused.

    raw_body must be the request body bytes as received (e.g. Flask request.get_data(),
    Django request.body), read before anything parses it.
    """
    if method.upper() != "POST":
        raise Refused("method not allowed")
    for name, value in (("X-TIMESTAMP", timestamp), ("X-SIGNATURE", signature), ("X-PARTNER-ID", header_partner_id)):
        if not value:
            raise Refused(f"missing {name}")
    timestamp_ms = parse_snap_timestamp(timestamp)
    if timestamp_ms is None:
        raise Refused("invalid X-TIMESTAMP")
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    if abs(now_ms - timestamp_ms) > tolerance_sec * 1000:
        raise Refused("Timestamp Out Of Range")
    if header_partner_id != partner_id:
        raise Refused("Unknown Partner")

    # The header values exactly as received, and the raw bytes: nothing re-formatted.
    data = callback_string_to_sign(path, header_partner_id, raw_body, timestamp)
    expected = hmac.new(client_secret.encode("utf-8"), data.encode("utf-8"), hashlib.sha512).digest()
    try:
        provided = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        provided = b""
    # Constant time: how much of a forged signature matched must not show in the timing.
    if not hmac.compare_digest(expected, provided):
        raise Refused("Invalid Signature")

    # Only now is the body trusted enough to parse.
    try:
        body = json.loads(raw_body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused("body is not JSON") from None
    if not isinstance(body, dict):
        raise Refused("body is not a JSON object")
    for field in ("originalReferenceNo", "originalPartnerReferenceNo", "latestTransactionStatus"):
        if not isinstance(body.get(field), str) or body[field] == "":
            raise Refused(f"invalid {field}")
    if body["latestTransactionStatus"] not in ACTIONS:
        raise Refused("invalid latestTransactionStatus")
    amount = body.get("amount")
    if not isinstance(amount, dict) or not isinstance(amount.get("value"), str) or not isinstance(
        amount.get("currency"), str
    ):
        raise Refused("invalid amount")
    return body


# --- a live call: token, then a signed QRIS -------------------------------------------------


def post(url: str, headers: dict, raw_body: bytes):
    request = urllib.request.Request(url, data=raw_body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def create_qris(base_url: str, client_key: str, client_secret: str, partner_id: str, reference: str, amount: str):
    # 1. The B2B access token.
    timestamp = jakarta_timestamp()
    status, raw = post(
        base_url + TOKEN_PATH,
        {
            "Content-Type": "application/json",
            "X-CLIENT-KEY": client_key,
            "X-TIMESTAMP": timestamp,
            "X-SIGNATURE": token_signature(client_secret, client_key, timestamp),
        },
        b'{"grantType":"client_credentials"}',
    )
    if status != 200:
        raise RuntimeError(f"token request: HTTP {status} {raw.decode('utf-8', 'replace')}")
    access_token = json.loads(raw)["accessToken"]

    # 2. The payment call. Serialise ONCE, minified (separators without spaces): these bytes
    # are hashed and these bytes are sent.
    body = json.dumps(
        {"partnerReferenceNo": reference, "amount": {"value": amount, "currency": "IDR"}},
        separators=(",", ":"),
        ensure_ascii=False,
    ).encode("utf-8")
    timestamp = jakarta_timestamp()
    headers = {
        "Content-Type": "application/json",
        "Authorization": f"Bearer {access_token}",
        "X-TIMESTAMP": timestamp,
        "X-SIGNATURE": payment_signature(client_secret, "POST", QRIS_GENERATE_PATH, access_token, body, timestamp),
        "X-PARTNER-ID": partner_id,
        # Digits only, unique per merchant and day: a retry with the same id gets the same answer.
        "X-EXTERNAL-ID": f"{int(time.time() * 1000)}{secrets.randbelow(10**6):06d}",
        "CHANNEL-ID": "95221",
    }
    return post(base_url + QRIS_GENERATE_PATH, headers, body)


# --- the command line -----------------------------------------------------------------------


def env(name: str, default=None) -> str:
    value = os.environ.get(name, default)
    if not value:
        print(f"usage: set {name}", file=sys.stderr)
        sys.exit(2)
    return value


def read_body(name: str) -> bytes:
    """The exact bytes of a file, or of stdin for "-": no newline added or stripped."""
    if name == "-":
        return sys.stdin.buffer.read()
    with open(name, "rb") as f:
        return f.read()


def main(argv) -> int:
    parser = argparse.ArgumentParser(prog="snapgate_recipe.py", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)

    c = commands.add_parser("verify-callback", help="verify a hmac-sha512 payment callback")
    c.add_argument("--path", required=True, help="the request target received, e.g. /webhook/payment-qr-notification")
    c.add_argument("--x-timestamp", required=True)
    c.add_argument("--x-signature", required=True)
    c.add_argument("--x-partner-id", required=True)
    c.add_argument("--body-file", required=True, help='the raw body bytes ("-" for stdin)')
    c.add_argument("--method", default="POST")
    c.add_argument("--now", help="judge X-TIMESTAMP against this time instead of the clock")
    c.add_argument("--tolerance-sec", type=int, default=TOLERANCE_SEC)

    c = commands.add_parser("sign-payment", help="X-SIGNATURE of a payment API call")
    c.add_argument("--method", required=True)
    c.add_argument("--path", required=True)
    c.add_argument("--token", required=True)
    c.add_argument("--timestamp", required=True)
    c.add_argument("--body-file", required=True)

    c = commands.add_parser("minify", help="the body bytes to send: the JSON without whitespace between tokens")
    c.add_argument("--body-file", required=True)

    c = commands.add_parser("sign-token", help="X-SIGNATURE of the B2B access-token request")
    c.add_argument("--timestamp", required=True)

    commands.add_parser("timestamp", help="now as an X-TIMESTAMP (Asia/Jakarta)")

    c = commands.add_parser("create-qris", help="take a token and create a QRIS on a live gateway")
    c.add_argument("--partner-reference-no", required=True)
    c.add_argument("--amount", required=True, help="e.g. 10000.00")

    args = parser.parse_args(argv)
    if args.command == "timestamp":
        print(jakarta_timestamp())
    elif args.command == "minify":
        sys.stdout.buffer.write(minify(read_body(args.body_file)))  # bytes, no newline added
    elif args.command == "sign-token":
        print(token_signature(env("SNAPGATE_CLIENT_SECRET"), env("SNAPGATE_CLIENT_KEY"), args.timestamp))
    elif args.command == "sign-payment":
        raw = read_body(args.body_file)
        secret = env("SNAPGATE_CLIENT_SECRET")
        print(payment_signature(secret, args.method, args.path, args.token, raw, args.timestamp))
    elif args.command == "verify-callback":
        now_ms = None
        if args.now is not None:
            now_ms = parse_snap_timestamp(args.now)
            if now_ms is None:
                print("usage: --now must be an ISO 8601 date-time with a zone", file=sys.stderr)
                return 2
        secret, partner_id = env("SNAPGATE_CLIENT_SECRET"), env("SNAPGATE_PARTNER_ID")
        try:
            body = verify_callback(
                client_secret=secret,
                partner_id=partner_id,
                method=args.method,
                path=args.path,
                timestamp=args.x_timestamp,
                signature=args.x_signature,
                header_partner_id=args.x_partner_id,
                raw_body=read_body(args.body_file),
                now_ms=now_ms,
                tolerance_sec=args.tolerance_sec,
            )
        except Refused as e:
            print(f"refused: {e}", file=sys.stderr)
            return 1
        status = body["latestTransactionStatus"]
        print("valid")
        print(f"latestTransactionStatus={status}")
        print(f"action={ACTIONS[status]}")
        print(f"originalReferenceNo={body['originalReferenceNo']}")
        print(f"originalPartnerReferenceNo={body['originalPartnerReferenceNo']}")
        print(f"amount={body['amount']['value']} {body['amount']['currency']}")
    elif args.command == "create-qris":
        try:
            status, raw = create_qris(
                env("SNAPGATE_URL", "http://127.0.0.1:8080").rstrip("/"),
                env("SNAPGATE_CLIENT_KEY"),
                env("SNAPGATE_CLIENT_SECRET"),
                env("SNAPGATE_PARTNER_ID"),
                args.partner_reference_no,
                args.amount,
            )
        except (OSError, RuntimeError, ValueError, KeyError) as e:
            print(f"failed: {e}", file=sys.stderr)
            return 1
        if status != 200:
            print(f"failed: HTTP {status} {raw.decode('utf-8', 'replace')}", file=sys.stderr)
            return 1
        print(raw.decode("utf-8"))
    return 0


if __name__ == "__main__":
    # Print UTF-8 whatever the locale says (a reference number may hold any character).
    sys.stdout.reconfigure(encoding="utf-8")
    sys.exit(main(sys.argv[1:]))
