#!/bin/sh
# disk-usage.sh — a `shell` provider for extract@1 -> disk_usage@1, in POSIX sh + awk.
#
# It is the second provider of the swap test: the same capability and schema
# as the `disk-usage` code parser (providers/disk-usage/parse.ts), added by a
# manifest alone, and it must yield the same value on the same df capture.
# The rules (thresholds 90/80, free = 100 - use%, loop and /snap/ images never
# the fullest, df -h read in powers of 1024) are the code parser's; change
# both together. It reads {"input": "<df text>", ...} on stdin and writes one
# JSON object on stdout. It runs nothing but awk and never reads any file.
set -eu
exec awk '
function fail(msg) { printf "disk-usage.sh: %s\n", msg > "/dev/stderr"; exit 2 }

# --- a small JSON reader: find the top-level "input" string ------------------
function ws() { while (pos <= n && index(" \t\r\n", substr(src, pos, 1)) > 0) pos++ }
function hexval(h,   i, v) { v = 0; for (i = 1; i <= 4; i++) v = v * 16 + index("0123456789abcdef", tolower(substr(h, i, 1))) - 1; return v }
function utf8(cp) {
  if (cp < 128) return sprintf("%c", cp)
  if (cp < 2048) return sprintf("%c%c", 192 + int(cp / 64), 128 + cp % 64)
  if (cp < 65536) return sprintf("%c%c%c", 224 + int(cp / 4096), 128 + int(cp / 64) % 64, 128 + cp % 64)
  return sprintf("%c%c%c%c", 240 + int(cp / 262144), 128 + int(cp / 4096) % 64, 128 + int(cp / 64) % 64, 128 + cp % 64)
}
# read a JSON string at pos (which is at the opening quote); returns its decoded text
function jstring(   out, c, e, cp, lo) {
  if (substr(src, pos, 1) != "\"") fail("expected a JSON string at byte " pos " of stdin")
  pos++; out = ""
  while (pos <= n) {
    c = substr(src, pos, 1)
    if (c == "\"") { pos++; return out }
    if (c == "\\") {
      e = substr(src, pos + 1, 1); pos += 2
      if (e == "n") out = out "\n"; else if (e == "t") out = out "\t"; else if (e == "r") out = out "\r"
      else if (e == "b") out = out "\b"; else if (e == "f") out = out "\f"
      else if (e == "u") {
        cp = hexval(substr(src, pos, 4)); pos += 4
        if (cp >= 55296 && cp < 56320 && substr(src, pos, 2) == "\\u") { lo = hexval(substr(src, pos + 2, 4)); pos += 6; cp = 65536 + (cp - 55296) * 1024 + (lo - 56320) }
        out = out utf8(cp)
      } else out = out e
    } else { out = out c; pos++ }
  }
  fail("unterminated JSON string on stdin")
}
# skip any JSON value at pos
function jskip(   depth, c) {
  c = substr(src, pos, 1)
  if (c == "\"") { jstring(); return }
  if (c != "{" && c != "[") { while (pos <= n && index(",}] \t\r\n", substr(src, pos, 1)) == 0) pos++; return }
  depth = 0
  while (pos <= n) {
    c = substr(src, pos, 1)
    if (c == "\"") { jstring(); continue }
    if (c == "{" || c == "[") depth++
    else if (c == "}" || c == "]") { depth--; if (depth == 0) { pos++; return } }
    pos++
  }
}
function input_text(   key, found, val) {
  pos = 1; ws()
  if (substr(src, pos, 1) != "{") fail("stdin must be a JSON object like {\"input\": \"<df text>\"}")
  pos++; found = 0
  while (pos <= n) {
    ws(); if (substr(src, pos, 1) == "}") break
    key = jstring(); ws()
    if (substr(src, pos, 1) != ":") fail("expected \":\" after key \"" key "\" on stdin")
    pos++; ws()
    if (key == "input") { val = jstring(); found = 1 } else jskip()
    ws(); if (substr(src, pos, 1) == ",") pos++
  }
  if (!found) fail("stdin has no \"input\" string; send {\"input\": \"<df text>\", ...}")
  return val
}

# --- df parsing: the same rules as providers/disk-usage/parse.ts --------------
function jq(s,   out, i, c, code) {
  out = ""
  for (i = 1; i <= length(s); i++) {
    c = substr(s, i, 1)
    if (c == "\"") out = out "\\\""; else if (c == "\\") out = out "\\\\"
    else if (c == "\t") out = out "\\t"; else if (c < " ") out = out sprintf("\\u%04x", index(ctl, c))
    else out = out c
  }
  return "\"" out "\""
}
function power(sfx,   i) { if (sfx == "") return 1; i = index("KMGTPE", toupper(sfx)); return 1024 ^ i }
function bytes(cell,   m, num, sfx) {
  if (blk_mult > 0) { if (cell ~ /^[0-9]+$/) return sprintf("%.0f", cell * blk_mult); return "null" }
  if (!human) return "null"
  if (cell !~ /^[0-9]+([.,][0-9]+)?[KMGTPEkmgtpe]?i?[Bb]?$/) return "null"
  num = cell; sub(/[KMGTPEkmgtpe]?i?[Bb]?$/, "", num); gsub(/,/, ".", num)
  sfx = cell; sub(/^[0-9]+([.,][0-9]+)?/, "", sfx); sfx = substr(sfx, 1, 1); if (sfx ~ /[iIbB]/) sfx = ""
  return sprintf("%.0f", int(num * power(sfx) + 0.5))
}
function state(p) { if (p == "") return "null"; if (p + 0 >= 90) return "\"critical\""; if (p + 0 >= 80) return "\"warning\""; return "\"ok\"" }
# split one joined row into R_fs, R_size, R_used, R_avail, R_pct, R_mount; the use% cell is the
# first "N%" or "-" with enough cells before it, and the mount is everything after it, spaces kept
function row(line,   tok, nt, i, k, pctpos, before, rest) {
  nt = split(line, tok, /[ \t]+/); pctpos = 0
  for (i = (typed ? 6 : 5); i < nt; i++) if (tok[i] ~ /^[0-9]+%$/ || tok[i] == "-") { pctpos = i; break }
  if (!pctpos) return 0
  before = pctpos - (typed ? 5 : 4)
  R_pct = tok[pctpos]; R_avail = tok[pctpos - 1]; R_used = tok[pctpos - 2]; R_size = tok[pctpos - 3]
  rest = line; R_fs = ""
  for (k = 1; k <= pctpos; k++) {
    match(rest, /^[ \t]*[^ \t]+/)
    if (k <= before) R_fs = R_fs substr(rest, 1, RLENGTH)
    rest = substr(rest, RLENGTH + 1)
  }
  sub(/^[ \t]+/, "", rest); R_mount = rest
  return 1
}
function emit_fs(i) {
  return "{\"filesystem\":" jq(FS_[i]) ",\"mount\":" jq(MNT[i]) ",\"size_bytes\":" SZ[i] ",\"used_bytes\":" US[i] \
    ",\"available_bytes\":" AV[i] ",\"used_percent\":" (PC[i] == "" ? "null" : PC[i]) \
    ",\"free_percent\":" (PC[i] == "" ? "null" : 100 - PC[i]) ",\"state\":" state(PC[i]) "}"
}
{ src = src $0 "\n" }
END {
  n = length(src)
  for (i = 1; i < 32; i++) ctl = ctl sprintf("%c", i)
  text = input_text()
  nl = split(text, L, "\n")
  header = 0
  for (i = 1; i <= nl; i++) { sub(/\r$/, "", L[i]); if (L[i] ~ /^[Ff][Ii][Ll][Ee][Ss][Yy][Ss][Tt][Ee][Mm][ \t]/) { header = i; break } }
  unit = ""; typed = 0; human = 0; blk_mult = 0
  if (header) {
    split(L[header], H, /[ \t]+/)
    typed = (tolower(H[2]) == "type")
    unit = typed ? H[3] : H[2]
    if (unit ~ /^[0-9]+[KMGTPEkmgtpe]?-blocks$/) { u = unit; sub(/-blocks$/, "", u); s = u; sub(/^[0-9]+/, "", s); sub(/[KMGTPEkmgtpe]$/, "", u); blk_mult = u * power(s) }
    else if (tolower(unit) == "size") human = 1
  }
  count = 0; pending = ""
  for (i = header + 1; i <= nl; i++) {
    line = L[i]; sub(/[ \t]+$/, "", line); sub(/^[ \t]+/, "", line)
    if (pending != "") { t = line; sub(/^[ \t]+/, "", t); line = pending " " t; pending = "" }
    if (line == "") continue
    if (line !~ /[ \t]/) { pending = line; continue }
    if (!row(line)) continue
    count++
    FS_[count] = R_fs; MNT[count] = R_mount; SZ[count] = bytes(R_size); US[count] = bytes(R_used); AV[count] = bytes(R_avail)
    PC[count] = (R_pct == "-") ? "" : substr(R_pct, 1, length(R_pct) - 1) + 0
  }
  best = 0
  for (i = 1; i <= count; i++) {
    if (PC[i] == "" || FS_[i] ~ /^\/dev\/loop[0-9]+$/ || index(MNT[i], "/snap/") == 1) continue
    if (!best || PC[i] + 0 > PC[best] + 0) best = i
  }
  out = "{\"block_unit\":" (header && unit != "" ? jq(unit) : "null") ",\"filesystems\":["
  for (i = 1; i <= count; i++) out = out (i > 1 ? "," : "") emit_fs(i)
  out = out "],\"fullest\":" (best ? emit_fs(best) : "null") ",\"state\":" (best ? state(PC[best]) : "null") "}"
  print out
}'
