// snapgate from Go: verify a payment callback, sign payment calls, take a token.
//
// Go 1.19+ and its standard library only: no modules to download.
//
//	export SNAPGATE_CLIENT_SECRET=...          # the merchant's client secret
//	go run snapgate_recipe.go verify-callback --path /webhook/payment-qr-notification \
//	    --x-timestamp "$TS" --x-signature "$SIG" --x-partner-id "$PID" --body-file body.json
//	go run snapgate_recipe.go sign-payment --method POST --path /api/snap/v1.0/qr/qr-mpm-generate \
//	    --token "$TOKEN" --timestamp "$TS" --body-file body.json
//	go run snapgate_recipe.go minify --body-file pretty.json > body.json   # the bytes to send
//	go run snapgate_recipe.go sign-token --timestamp "$TS"          # needs SNAPGATE_CLIENT_KEY
//	go run snapgate_recipe.go timestamp                               # now, Asia/Jakarta
//	go run snapgate_recipe.go create-qris --partner-reference-no INV-1 --amount 10000.00
//
// Exit codes: 0 done (callback valid), 1 refused or failed, 2 bad usage.
// See docs/recipes/README.md, docs/protocol.md and docs/callbacks.md.
//
// The rule behind every signature here: hash the BYTES that travel on the wire. In a callback
// handler that is io.ReadAll(r.Body), read before anything decodes it. Never hash a
// json.Marshal of what you decoded: it escapes "<>&", drops what your struct does not know and
// writes numbers its own way, so the hash, and the signature, no longer match. When sending,
// marshal once, sign those bytes, send those bytes.
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

const (
	tokenPath        = "/api/snap/v1.0/access-token/b2b"
	qrisGeneratePath = "/api/snap/v1.0/qr/qr-mpm-generate"
	// How far X-TIMESTAMP of a callback may be from now, either way (the merchant SDK's default).
	// Too old and too new are both refused, so a captured callback cannot be replayed later.
	toleranceSec = 300
)

// What the merchant does with its order for each latestTransactionStatus.
var actions = map[string]string{"00": "PAID", "06": "FAILED", "04": "REFUNDED", "05": "CANCELED", "01": "WAIT", "02": "WAIT", "03": "WAIT"}

// Refused means: the callback is not to be trusted; answer it 401 (or 400) and change nothing.
type Refused struct{ Reason string }

func (r Refused) Error() string { return r.Reason }

// --- the signatures ------------------------------------------------------------------------

// sha256Hex is the lowercase hex SHA-256 of the body bytes exactly as sent or received (nil for no body).
func sha256Hex(rawBody []byte) string {
	sum := sha256.Sum256(rawBody)
	return hex.EncodeToString(sum[:])
}

// TokenSignature is the X-SIGNATURE of POST /api/snap/v1.0/access-token/b2b:
// base64(HMAC-SHA256(client secret, "<clientKey>|<X-TIMESTAMP>")), the timestamp exactly as sent.
// The body ({"grantType":"client_credentials"}) is not signed.
func TokenSignature(clientSecret, clientKey, timestamp string) string {
	mac := hmac.New(sha256.New, []byte(clientSecret))
	mac.Write([]byte(clientKey + "|" + timestamp))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Minify is SNAP's Minify(body): the JSON text without the whitespace outside string values.
//
// Spaces, tabs, CR and LF between tokens go; everything else stays as written (key order, escapes
// such as \/ or \u00e9, number forms, spaces inside strings). Works on the UTF-8 bytes: a
// multi-byte character never contains an ASCII byte.
func Minify(rawBody []byte) []byte {
	out := make([]byte, 0, len(rawBody))
	inString, escaped := false, false
	for _, c := range rawBody {
		switch {
		case inString:
			out = append(out, c)
			if escaped {
				escaped = false
			} else if c == '\\' {
				escaped = true
			} else if c == '"' {
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		default:
			out = append(out, c)
			inString = c == '"'
		}
	}
	return out
}

// PaymentStringToSign is METHOD:path:accessToken:lowerhex(sha256(body bytes)):X-TIMESTAMP.
//
// path is the request target exactly as sent (path and query, no host). rawBody is the body
// exactly as sent: the gateway hashes the bytes it receives and minifies nothing. SNAP asks for
// the minified body, so Minify first, then sign AND send those minified bytes.
func PaymentStringToSign(method, path, accessToken string, rawBody []byte, timestamp string) string {
	return strings.ToUpper(method) + ":" + path + ":" + accessToken + ":" + sha256Hex(rawBody) + ":" + timestamp
}

// PaymentSignature is the X-SIGNATURE of a payment API call: base64(HMAC-SHA512(client secret, string to sign)).
func PaymentSignature(clientSecret, method, path, accessToken string, rawBody []byte, timestamp string) string {
	mac := hmac.New(sha512.New, []byte(clientSecret))
	mac.Write([]byte(PaymentStringToSign(method, path, accessToken, rawBody, timestamp)))
	return base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// CallbackStringToSign, hmac-sha512 callbacks: POST:<path>:<X-PARTNER-ID>:lowerhex(sha256(body bytes)):<X-TIMESTAMP>.
//
// path is the target the gateway sent (r.URL.RequestURI(): path and query of your callback URL).
// Behind a proxy that rewrites paths, use the original one.
func CallbackStringToSign(path, partnerID string, rawBody []byte, timestamp string) string {
	return "POST:" + path + ":" + partnerID + ":" + sha256Hex(rawBody) + ":" + timestamp
}

var timestampRe = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|([+-])(\d{2}):?(\d{2}))$`)

// ParseSnapTimestamp reads an ISO 8601 date-time with seconds and a zone (2026-11-23T10:00:05+07:00,
// 2026-11-23T03:00:05.123Z, +0700) into epoch milliseconds; ok is false for anything else.
func ParseSnapTimestamp(value string) (ms int64, ok bool) {
	m := timestampRe.FindStringSubmatch(value)
	if m == nil {
		return 0, false
	}
	n := func(s string) int { v, _ := strconv.Atoi(s); return v }
	year, month, day, hour, minute, second := n(m[1]), n(m[2]), n(m[3]), n(m[4]), n(m[5]), n(m[6])
	// time.Date normalises 2026-02-30 into March: refuse what does not exist instead.
	if month < 1 || month > 12 || day < 1 || day > time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day() ||
		hour > 23 || minute > 59 || second > 59 {
		return 0, false
	}
	millis := 0
	if m[7] != "" {
		millis = n((m[7] + "00")[:3])
	}
	offsetMin := 0
	if m[8] != "Z" {
		offH, offM := n(m[10]), n(m[11])
		if offH > 14 || offM > 59 {
			return 0, false
		}
		offsetMin = offH*60 + offM
		if m[9] == "-" {
			offsetMin = -offsetMin
		}
	}
	utc := time.Date(year, time.Month(month), day, hour, minute, second, 0, time.UTC)
	return utc.Unix()*1000 + int64(millis) - int64(offsetMin)*60_000, true
}

// JakartaTimestamp is now as a SNAP X-TIMESTAMP in Asia/Jakarta time: 2026-11-23T10:00:05+07:00.
func JakartaTimestamp() string {
	return time.Now().In(time.FixedZone("WIB", 7*3600)).Format("2006-01-02T15:04:05-07:00")
}

// CallbackRequest is what the signature covers: the request as received.
type CallbackRequest struct {
	Method, Path                       string
	Timestamp, Signature, PartnerIDHdr string // X-TIMESTAMP, X-SIGNATURE, X-PARTNER-ID
	RawBody                            []byte // as received: io.ReadAll(r.Body)
}

// Notification is the part of a payment notification this recipe reads.
type Notification struct {
	OriginalReferenceNo        string `json:"originalReferenceNo"`
	OriginalPartnerReferenceNo string `json:"originalPartnerReferenceNo"`
	LatestTransactionStatus    string `json:"latestTransactionStatus"`
	Amount                     *struct {
		Value    *string `json:"value"`
		Currency *string `json:"currency"`
	} `json:"amount"`
}

// VerifyCallback checks a hmac-sha512 payment callback and returns its body, or a Refused error.
func VerifyCallback(clientSecret, partnerID string, r CallbackRequest, nowMs int64, tolerance int64) (*Notification, error) {
	if strings.ToUpper(r.Method) != "POST" {
		return nil, Refused{"method not allowed"}
	}
	for _, h := range [][2]string{{"X-TIMESTAMP", r.Timestamp}, {"X-SIGNATURE", r.Signature}, {"X-PARTNER-ID", r.PartnerIDHdr}} {
		if h[1] == "" {
			return nil, Refused{"missing " + h[0]}
		}
	}
	timestampMs, ok := ParseSnapTimestamp(r.Timestamp)
	if !ok {
		return nil, Refused{"invalid X-TIMESTAMP"}
	}
	if d := nowMs - timestampMs; d > tolerance*1000 || -d > tolerance*1000 {
		return nil, Refused{"Timestamp Out Of Range"}
	}
	if r.PartnerIDHdr != partnerID {
		return nil, Refused{"Unknown Partner"}
	}

	// The header values exactly as received, and the raw bytes: nothing re-formatted.
	mac := hmac.New(sha512.New, []byte(clientSecret))
	mac.Write([]byte(CallbackStringToSign(r.Path, r.PartnerIDHdr, r.RawBody, r.Timestamp)))
	provided, err := base64.StdEncoding.Strict().DecodeString(r.Signature)
	// hmac.Equal is constant time: how much of a forged signature matched must not show.
	if err != nil || !hmac.Equal(mac.Sum(nil), provided) {
		return nil, Refused{"Invalid Signature"}
	}

	// Only now is the body trusted enough to decode.
	var n Notification
	if err := json.Unmarshal(r.RawBody, &n); err != nil {
		return nil, Refused{"body is not a JSON object"}
	}
	for _, f := range [][2]string{
		{"originalReferenceNo", n.OriginalReferenceNo},
		{"originalPartnerReferenceNo", n.OriginalPartnerReferenceNo},
		{"latestTransactionStatus", n.LatestTransactionStatus},
	} {
		if f[1] == "" {
			return nil, Refused{"invalid " + f[0]}
		}
	}
	if _, known := actions[n.LatestTransactionStatus]; !known {
		return nil, Refused{"invalid latestTransactionStatus"}
	}
	if n.Amount == nil || n.Amount.Value == nil || n.Amount.Currency == nil {
		return nil, Refused{"invalid amount"}
	}
	return &n, nil
}

// --- a live call: token, then a signed QRIS ------------------------------------------------

var client = &http.Client{Timeout: 30 * time.Second}

// post sends exactly rawBody and returns the status and the response body.
func post(url string, headers map[string]string, rawBody []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(rawBody))
	if err != nil {
		return 0, nil, err
	}
	for name, value := range headers {
		req.Header.Set(name, value)
	}
	res, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	return res.StatusCode, body, err
}

// CreateQris takes a B2B token, then creates a QRIS with a signed payment call.
func CreateQris(baseURL, clientKey, clientSecret, partnerID, reference, amount string) (int, []byte, error) {
	// 1. The B2B access token.
	timestamp := JakartaTimestamp()
	status, raw, err := post(baseURL+tokenPath, map[string]string{
		"Content-Type": "application/json",
		"X-CLIENT-KEY": clientKey,
		"X-TIMESTAMP":  timestamp,
		"X-SIGNATURE":  TokenSignature(clientSecret, clientKey, timestamp),
	}, []byte(`{"grantType":"client_credentials"}`))
	if err != nil {
		return 0, nil, err
	}
	if status != 200 {
		return 0, nil, fmt.Errorf("token request: HTTP %d %s", status, raw)
	}
	var token struct {
		AccessToken string `json:"accessToken"`
	}
	if err := json.Unmarshal(raw, &token); err != nil {
		return 0, nil, err
	}

	// 2. The payment call. Marshal ONCE (json.Marshal writes no whitespace: already minified):
	// these bytes are hashed and these bytes are sent.
	body, err := json.Marshal(map[string]any{
		"partnerReferenceNo": reference,
		"amount":             map[string]string{"value": amount, "currency": "IDR"},
	})
	if err != nil {
		return 0, nil, err
	}
	suffix, err := rand.Int(rand.Reader, big.NewInt(1_000_000))
	if err != nil {
		return 0, nil, err
	}
	timestamp = JakartaTimestamp()
	return post(baseURL+qrisGeneratePath, map[string]string{
		"Content-Type":  "application/json",
		"Authorization": "Bearer " + token.AccessToken,
		"X-TIMESTAMP":   timestamp,
		"X-SIGNATURE":   PaymentSignature(clientSecret, "POST", qrisGeneratePath, token.AccessToken, body, timestamp),
		"X-PARTNER-ID":  partnerID,
		// Digits only, unique per merchant and day: a retry with the same id gets the same answer.
		"X-EXTERNAL-ID": fmt.Sprintf("%d%06d", time.Now().UnixMilli(), suffix.Int64()),
		"CHANNEL-ID":    "95221",
	}, body)
}

// --- the command line ----------------------------------------------------------------------

type usageError string

func (u usageError) Error() string { return string(u) }

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	if fallback == "" {
		panic(usageError("set " + name))
	}
	return fallback
}

// readBody returns the exact bytes of a file, or of stdin for "-": no newline added or stripped.
func readBody(name string) []byte {
	var raw []byte
	var err error
	if name == "-" {
		raw, err = io.ReadAll(os.Stdin)
	} else {
		raw, err = os.ReadFile(name)
	}
	if err != nil {
		panic(usageError("cannot read " + name))
	}
	return raw
}

// options parses --name value flags; every name in required must be given.
func options(command string, args []string, required []string, optional map[string]string) map[string]*string {
	set := flag.NewFlagSet(command, flag.ContinueOnError)
	set.SetOutput(io.Discard)
	values := map[string]*string{}
	for _, name := range required {
		values[name] = set.String(name, "", "")
	}
	for name, def := range optional {
		values[name] = set.String(name, def, "")
	}
	if err := set.Parse(args); err != nil {
		panic(usageError(err.Error()))
	}
	if set.NArg() > 0 {
		panic(usageError("unexpected " + set.Arg(0)))
	}
	for _, name := range required {
		if *values[name] == "" {
			panic(usageError("--" + name + " is required"))
		}
	}
	return values
}

func run(args []string) int {
	if len(args) == 0 {
		panic(usageError("commands: verify-callback, sign-payment, minify, sign-token, timestamp, create-qris"))
	}
	command, rest := args[0], args[1:]
	switch command {
	case "timestamp":
		options(command, rest, nil, nil)
		fmt.Println(JakartaTimestamp())
	case "minify":
		o := options(command, rest, []string{"body-file"}, nil)
		os.Stdout.Write(Minify(readBody(*o["body-file"]))) // bytes, no newline added
	case "sign-token":
		o := options(command, rest, []string{"timestamp"}, nil)
		fmt.Println(TokenSignature(env("SNAPGATE_CLIENT_SECRET", ""), env("SNAPGATE_CLIENT_KEY", ""), *o["timestamp"]))
	case "sign-payment":
		o := options(command, rest, []string{"method", "path", "token", "timestamp", "body-file"}, nil)
		raw := readBody(*o["body-file"])
		fmt.Println(PaymentSignature(env("SNAPGATE_CLIENT_SECRET", ""), *o["method"], *o["path"], *o["token"], raw, *o["timestamp"]))
	case "verify-callback":
		o := options(command, rest,
			[]string{"path", "x-timestamp", "x-signature", "x-partner-id", "body-file"},
			map[string]string{"method": "POST", "now": "", "tolerance-sec": strconv.Itoa(toleranceSec)})
		nowMs := time.Now().UnixMilli()
		if *o["now"] != "" {
			var ok bool
			if nowMs, ok = ParseSnapTimestamp(*o["now"]); !ok {
				panic(usageError("--now must be an ISO 8601 date-time with a zone"))
			}
		}
		tolerance, err := strconv.ParseInt(*o["tolerance-sec"], 10, 64)
		if err != nil || tolerance < 0 {
			panic(usageError("--tolerance-sec must be a number of seconds"))
		}
		secret, partnerID := env("SNAPGATE_CLIENT_SECRET", ""), env("SNAPGATE_PARTNER_ID", "")
		n, err := VerifyCallback(secret, partnerID, CallbackRequest{
			Method:       *o["method"],
			Path:         *o["path"],
			Timestamp:    *o["x-timestamp"],
			Signature:    *o["x-signature"],
			PartnerIDHdr: *o["x-partner-id"],
			RawBody:      readBody(*o["body-file"]),
		}, nowMs, tolerance)
		if err != nil {
			fmt.Fprintln(os.Stderr, "refused:", err)
			return 1
		}
		fmt.Printf("valid\nlatestTransactionStatus=%s\naction=%s\noriginalReferenceNo=%s\noriginalPartnerReferenceNo=%s\namount=%s %s\n",
			n.LatestTransactionStatus, actions[n.LatestTransactionStatus], n.OriginalReferenceNo,
			n.OriginalPartnerReferenceNo, *n.Amount.Value, *n.Amount.Currency)
	case "create-qris":
		o := options(command, rest, []string{"partner-reference-no", "amount"}, nil)
		status, raw, err := CreateQris(
			strings.TrimRight(env("SNAPGATE_URL", "http://127.0.0.1:8080"), "/"),
			env("SNAPGATE_CLIENT_KEY", ""), env("SNAPGATE_CLIENT_SECRET", ""), env("SNAPGATE_PARTNER_ID", ""),
			*o["partner-reference-no"], *o["amount"])
		if err != nil {
			fmt.Fprintln(os.Stderr, "failed:", err)
			return 1
		}
		if status != 200 {
			fmt.Fprintf(os.Stderr, "failed: HTTP %d %s\n", status, raw)
			return 1
		}
		fmt.Println(string(raw))
	default:
		panic(usageError("commands: verify-callback, sign-payment, minify, sign-token, timestamp, create-qris"))
	}
	return 0
}

func main() {
	defer func() {
		if r := recover(); r != nil {
			if u, ok := r.(usageError); ok {
				fmt.Fprintln(os.Stderr, "usage:", u)
				os.Exit(2)
			}
			panic(r)
		}
	}()
	os.Exit(run(os.Args[1:]))
}
