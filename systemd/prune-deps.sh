#!/bin/sh
# What a production box never uses, out of an installed app's node_modules (issue 24).
#
#   systemd/prune-deps.sh APP_DIR          remove it (install.sh runs this after npm ci --omit=dev)
#   systemd/prune-deps.sh --list APP_DIR   print the paths it would remove, one a line, change nothing
#
#   - llama.cpp builds for other platforms: node-llama-cpp's packages for linux-arm64 and
#     linux-armv7l declare x64 too, so npm installs three of them on an x64 machine (on a Pi,
#     npm's own cpu filter leaves only the one);
#   - node-llama-cpp's llama.cpp source bundle (llama/gitRelease.bundle, 34 MB): it serves a
#     build from source, and the gguf adapter never builds (getLlama build: 'never');
#   - better-sqlite3's SQLite sources (deps/, src/) and, after a build from source, what the
#     compiler left (objects, the static library, a test extension): the addon is
#     build/Release/better_sqlite3.node alone. Only a rebuild would need the rest, and an upgrade
#     installs afresh.
# Never run it on a development checkout: `npm rebuild` there needs the sources.
set -eu
# the comment block at the top of this file, without its marks
usage() { sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"; }
LIST=0
case "${1:-}" in
  -h|--help) usage; exit 0 ;;
  --list) LIST=1; shift ;;
  -*) echo "prune-deps.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
esac
[ $# -eq 1 ] || { echo "usage: prune-deps.sh [--list] APP_DIR (--help says what it removes)" >&2; exit 2; }
NM="$1/node_modules"
[ -d "$NM" ] || { echo "prune-deps.sh: $NM is not a folder; install the dependencies first" >&2; exit 2; }

# this machine's CPU build of llama.cpp, as node-llama-cpp names its packages
KEEP="$(node -p "({'linux-x64':'linux-x64','linux-arm64':'linux-arm64','linux-arm':'linux-armv7l','darwin-arm64':'mac-arm64-metal','darwin-x64':'mac-x64','win32-x64':'win-x64','win32-arm64':'win-arm64'})[process.platform + '-' + process.arch] ?? ''")"

paths() {
  for d in "$NM"/@node-llama-cpp/*; do
    [ -e "$d" ] || continue
    [ "$(basename "$d")" = "$KEEP" ] || echo "$d"
  done
  [ -e "$NM/node-llama-cpp/llama/gitRelease.bundle" ] && echo "$NM/node-llama-cpp/llama/gitRelease.bundle"
  B="$NM/better-sqlite3"
  if [ -f "$B/build/Release/better_sqlite3.node" ]; then
    for p in deps src build/deps build/Release/obj build/Release/obj.target build/Release/.deps build/Release/sqlite3.a build/Release/test_extension.node; do
      [ -e "$B/$p" ] && echo "$B/$p"
    done
  fi
  return 0
}

if [ "$LIST" = 1 ]; then paths; exit 0; fi
if [ -L "$NM" ]; then echo "prune-deps.sh: $NM is a link (install.sh --link-deps): nothing pruned" >&2; exit 0; fi
paths | while IFS= read -r p; do rm -rf -- "$p"; done
