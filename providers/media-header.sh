#!/bin/sh
# media-header.sh — a `shell` provider for extract@1 -> image_properties@1 and audio_properties@1,
# in POSIX sh + awk (mawk or gawk): the second modality, served without a model and without any
# runtime code (design §17, probe P-C).
#
# Its input is what the image_info / audio_info tools print: `od -A n -t u1 -v` of a file's first
# bytes, i.e. decimal byte values and white space only. It reads the header the way the formats
# define it — PNG IHDR, GIF logical screen, BMP info header, a JPEG start-of-frame within the
# bytes read, a RIFF/WAVE fmt chunk and the size of the data chunk — and prints one JSON object
# of the schema named by "schema_id". It never reads a file, never decodes pixels or samples, and
# never copies a byte of the file into a string: `note` holds only this script's fixed words.
# Anything that is not such a dump is refused on stderr with exit 2 (a tool_failed for the step).
set -eu
exec awk '
function fail(msg) { printf "media-header.sh: %s\n", msg > "/dev/stderr"; exit 2 }
function u16le(i) { return B[i] + 256 * B[i + 1] }
function u32le(i) { return B[i] + 256 * B[i + 1] + 65536 * B[i + 2] + 16777216 * B[i + 3] }
function u16be(i) { return 256 * B[i] + B[i + 1] }
function u32be(i) { return 16777216 * B[i] + 65536 * B[i + 1] + 256 * B[i + 2] + B[i + 3] }
function has(i, n) { return i >= 0 && i + n <= N }
# the bytes at i spell the given decimal byte values
function magic(i, list,   t, k, c) { c = split(list, t, " "); if (!has(i, c)) return 0; for (k = 1; k <= c; k++) if (B[i + k - 1] != t[k]) return 0; return 1 }
function jnum(v) { return v == "" ? "null" : v }
function jstr(v) { return v == "" ? "null" : "\"" v "\"" }

function image(   size, m, len, i, comp, w, h) {
  fmt = ""; W = ""; H = ""; DEPTH = ""; COLOR = ""; NOTE = ""
  if (magic(0, "137 80 78 71 13 10 26 10")) {
    fmt = "png"
    if (!magic(12, "73 72 68 82") || !has(16, 10)) { NOTE = "the PNG has no IHDR chunk within the bytes read"; return }
    W = u32be(16); H = u32be(20); DEPTH = B[24]
    m = B[25]; COLOR = (m == 0 ? "gray" : m == 2 ? "rgb" : m == 3 ? "palette" : m == 4 ? "gray_alpha" : m == 6 ? "rgba" : "")
  } else if (magic(0, "71 73 70 56 55 97") || magic(0, "71 73 70 56 57 97")) {
    fmt = "gif"
    if (!has(6, 5)) { NOTE = "the GIF header is cut short"; return }
    W = u16le(6); H = u16le(8); DEPTH = int(B[10] / 16) % 8 + 1; COLOR = "palette"
  } else if (magic(0, "66 77")) {
    fmt = "bmp"
    if (!has(14, 4)) { NOTE = "the BMP header is cut short"; return }
    size = u32le(14)
    if (size == 12 && has(18, 8)) { W = u16le(18); H = u16le(20); DEPTH = u16le(24) }
    else if (size >= 40 && has(18, 12)) {
      W = u32le(18); H = u32le(22); if (H >= 2147483648) H = 4294967296 - H
      DEPTH = u16le(28)
    } else { NOTE = "the BMP info header is of a kind this reader does not know"; return }
    COLOR = (DEPTH <= 8 ? "palette" : DEPTH == 24 ? "rgb" : "")
  } else if (magic(0, "255 216")) {
    fmt = "jpeg"; i = 2
    while (has(i, 4)) {
      if (B[i] != 255) { NOTE = "the JPEG segments are not in order"; return }
      m = B[i + 1]
      if (m == 255) { i++; continue }
      if (m == 1 || (m >= 208 && m <= 216)) { i += 2; continue }
      if (m == 217 || m == 218) break
      len = u16be(i + 2)
      if ((m >= 192 && m <= 207) && m != 196 && m != 200 && m != 204) {
        if (!has(i + 4, 6)) break
        DEPTH = B[i + 4]; H = u16be(i + 5); W = u16be(i + 7); comp = B[i + 9]
        COLOR = (comp == 1 ? "gray" : comp == 3 ? "ycbcr" : comp == 4 ? "cmyk" : "")
        if (H == 0) { H = ""; NOTE = "the JPEG states its height later in the file" }
        return
      }
      i += 2 + len
    }
    NOTE = "no JPEG start-of-frame within the first " N " bytes"
  } else NOTE = "the header is not PNG, GIF, JPEG or BMP"
  if (W == 0) W = ""; if (H == 0) H = ""; if (DEPTH == 0) DEPTH = ""
}

function audio(   i, id, size, tag) {
  fmt = ""; ENC = ""; CH = ""; RATE = ""; BITS = ""; BRATE = ""; DATA = ""; DUR = ""; NOTE = ""
  if (!magic(0, "82 73 70 70") || !magic(8, "87 65 86 69")) { NOTE = "the header is not RIFF/WAVE"; return }
  fmt = "wav"; i = 12
  while (has(i, 8)) {
    size = u32le(i + 4)
    if (magic(i, "102 109 116 32")) {
      if (!has(i + 8, 16)) { NOTE = "the fmt chunk is cut short"; return }
      tag = u16le(i + 8)
      if (tag == 65534 && has(i + 32, 2)) tag = u16le(i + 32)
      ENC = (tag == 1 ? "pcm" : tag == 3 ? "float" : "other")
      CH = u16le(i + 10); RATE = u32le(i + 12); BRATE = u32le(i + 16); BITS = u16le(i + 22)
    } else if (magic(i, "100 97 116 97")) { DATA = size; break }
    i += 8 + size + size % 2
  }
  if (ENC == "") NOTE = "no fmt chunk within the first " N " bytes"
  else if (DATA == "") NOTE = "no data chunk header within the first " N " bytes"
  if (CH == 0) CH = ""; if (RATE == 0) RATE = ""; if (BITS == 0) BITS = ""; if (BRATE == 0) BRATE = ""
  if (DATA != "" && BRATE != "") DUR = sprintf("%.3f", DATA / BRATE) + 0
}

BEGIN { CONVFMT = "%.10g"; OFMT = "%.10g" }
{ src = src $0 "\n" }
END {
  p = index(src, "\"input\":\"")
  if (!p) fail("stdin has no \"input\" string; send {\"input\": \"<od -A n -t u1 -v dump>\", \"schema_id\": ...}")
  rest = substr(src, p + 9); q = index(rest, "\"")
  if (!q) fail("the \"input\" string on stdin is not terminated")
  text = substr(rest, 1, q - 1); gsub(/\\n|\\t|\\r/, " ", text)
  if (text ~ /[^0-9 ]/) fail("the input is not an od -A n -t u1 dump (only decimal byte values and spaces); run the image_info or audio_info tool")
  N = split(text, T, " ")
  for (k = 1; k <= N; k++) { if (T[k] + 0 > 255) fail("the input holds a value above 255, so it is not an od -t u1 dump"); B[k - 1] = T[k] + 0 }
  if (N == 0) fail("the input holds no bytes")
  if (!match(src, /"schema_id":"[a-z_0-9]+@[0-9]+"/)) fail("stdin has no \"schema_id\"")
  schema = substr(src, RSTART + 13, RLENGTH - 14)
  if (schema == "image_properties@1") {
    image()
    printf "{\"format\":%s,\"width\":%s,\"height\":%s,\"bit_depth\":%s,\"color\":%s,\"bytes_read\":%d,\"note\":%s}\n", jstr(fmt), jnum(W), jnum(H), jnum(DEPTH), jstr(COLOR), N, jstr(NOTE)
  } else if (schema == "audio_properties@1") {
    audio()
    printf "{\"format\":%s,\"encoding\":%s,\"channels\":%s,\"sample_rate_hz\":%s,\"bits_per_sample\":%s,\"byte_rate\":%s,\"data_bytes\":%s,\"duration_seconds\":%s,\"bytes_read\":%d,\"note\":%s}\n", jstr(fmt), jstr(ENC), jnum(CH), jnum(RATE), jnum(BITS), jnum(BRATE), jnum(DATA), jnum(DUR), N, jstr(NOTE)
  } else fail("asked for schema \"" schema "\"; this provider makes image_properties@1 and audio_properties@1 only; fix the manifest \"schemas\"")
}'
