#!/usr/bin/env bash
# picoharness as a systemd service: install, upgrade (the same command again) and uninstall.
#
#   sudo systemd/install.sh                 # first install, or upgrade from a newer checkout
#   sudo systemd/install.sh --uninstall     # remove the service and the app, keep the root
#   sudo systemd/install.sh --uninstall --purge   # ... and the root, the user and the group
#
# What it does (each step is printed as it runs, `+ command`):
#   1. checks that systemd runs this machine (it is PID 1) and Node >= 20 (Debian 12 ships 18: see
#      the README), then builds the checkout: npm ci (skipped when node_modules/ already matches
#      package-lock.json), npm run build (which does nothing when dist/ is up to date);
#   2. makes the system group and user picoharness (members of the group may submit and read results);
#   3. stages the app (dist/, and of manifests, prompts, examples, systemd and the shell providers
#      only the files the package ships: in a checkout, those git tracks) in /opt/picoharness.new,
#      gives it the checkout's dependencies without the devDependencies (a copy of node_modules,
#      then npm prune --omit=dev: npm fetches the packages once; then systemd/prune-deps.sh drops
#      what a production box never uses), then swaps it in for /opt/picoharness (the old app keeps
#      running until the swap, and a failed step leaves it untouched);
#   4. writes /usr/local/bin/pico (a wrapper: node, the app, PICO_ROOT=/var/lib/picoharness);
#   5. first install only: `pico init /var/lib/picoharness` as the user picoharness; every time:
#      models/ in the root, and the modes the group relies on (root 0750, sessions/inbox 2770);
#   6. installs the unit with this machine's node, daemon-reload, then enable --now (first
#      install) or restart (upgrade).
# Idempotent: running it twice installs the same thing twice.
#
# Options (for trying it out, packaging and tests):
#   --prefix DIR     install under DIR instead of / (the wrapper and unit name DIR's paths);
#                    implies --no-systemctl
#   --no-systemctl   do not call systemctl (say what would be run)
#   --no-users       do not create the user and group, do not chown (as a non-root user)
#   --no-build       use the checkout's dist/ as it is (it must exist) instead of npm ci + build
#   --no-npm         do not install the app's dependencies (the app will not run without them)
#   --link-deps DIR  link the app's node_modules to DIR/node_modules instead of the pruned copy
#                    (offline trials and tests; DIR's devDependencies come along)
#   --dry-run        print every step, change nothing
#   --uninstall [--purge]   see above
set -euo pipefail

PREFIX=''
SYSTEMCTL=1
USERS=1
BUILD=1
NPM=1
LINK_DEPS=''
DRY=0
ACTION=install
PURGE=0
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NAME=picoharness

# the comment block at the top of this file, without its marks (and nothing of the script below it)
usage() { sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}"; }
die() { echo "install.sh: $*" >&2; exit 2; }

while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) [ $# -ge 2 ] || die '--prefix needs a directory'; PREFIX="$(mkdir -p "$2" && cd "$2" && pwd)"; SYSTEMCTL=0; shift ;;
    --prefix=*) PREFIX="$(mkdir -p "${1#--prefix=}" && cd "${1#--prefix=}" && pwd)"; SYSTEMCTL=0 ;;
    --no-systemctl) SYSTEMCTL=0 ;;
    --no-users) USERS=0 ;;
    --no-build) BUILD=0 ;;
    --no-npm) NPM=0 ;;
    --link-deps) [ $# -ge 2 ] || die '--link-deps needs a directory'; LINK_DEPS="$(cd "$2" && pwd)"; [ -d "$LINK_DEPS/node_modules" ] || die "$LINK_DEPS/node_modules does not exist"; NPM=0; shift ;;
    --dry-run) DRY=1 ;;
    --uninstall) ACTION=uninstall ;;
    --purge) PURGE=1 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
  shift
done
if [ "$PURGE" = 1 ] && [ "$ACTION" != uninstall ]; then die '--purge goes with --uninstall'; fi

APP="$PREFIX/opt/$NAME"
BIN="$PREFIX/usr/local/bin/pico"
UNIT="$PREFIX/etc/systemd/system/$NAME.service"
ROOT="$PREFIX/var/lib/$NAME"
# the code caches of the bundles (CacheDirectory= in the unit): derived, removed with the app
CACHE="$PREFIX/var/cache/$NAME"

say() { echo "install.sh: $*"; }
run() {
  echo "+ $*"
  [ "$DRY" = 1 ] || "$@"
}
# run a command in a directory (printed as one step)
run_in() {
  local dir="$1"; shift
  echo "+ (cd $dir && $*)"
  [ "$DRY" = 1 ] || (cd "$dir" && "$@")
}
sysctl() {
  if [ "$SYSTEMCTL" = 1 ]; then run systemctl "$@"; else echo "  (skipped: systemctl $*)"; fi
}
# run a command as the service's user (or as oneself with --no-users), with the unit's umask
as_service() {
  if [ "$USERS" = 1 ]; then run runuser -u "$NAME" -- sh -c 'umask 0027; exec "$@"' sh "$@"
  else run sh -c 'umask 0027; exec "$@"' sh "$@"; fi
}

if [ "$USERS" = 1 ] && [ "$DRY" = 0 ] && [ "$(id -u)" != 0 ]; then
  die "run as root (sudo $0 $*), or with --no-users --prefix DIR to try it without root"
fi

uninstall() {
  say "uninstalling $NAME${PREFIX:+ from $PREFIX}"
  if [ -e "$UNIT" ]; then
    sysctl disable --now "$NAME.service"
    run rm -f "$UNIT"
    sysctl daemon-reload
  fi
  run rm -f "$BIN"
  run rm -rf "$APP" "$APP.new" "$APP.old" "$CACHE"
  if [ "$PURGE" = 1 ]; then
    run rm -rf "$ROOT"
    if [ "$USERS" = 1 ]; then
      if id -u "$NAME" >/dev/null 2>&1; then run userdel "$NAME"; fi
      if getent group "$NAME" >/dev/null; then run groupdel "$NAME"; fi
    fi
    say "removed the app, the unit, pico, the root $ROOT and the user and group $NAME"
  else
    say "removed the app, the unit and pico; kept the root $ROOT (jobs, results, models, memory): --purge removes it"
  fi
}

if [ "$ACTION" = uninstall ]; then uninstall; exit 0; fi

# 1. systemd, Node and the build
# a unit needs systemd as the init system (PID 1): a container or a WSL box without it would get
# files installed and a service that never starts; say so before changing anything
if [ "$SYSTEMCTL" = 1 ] && [ ! -d /run/systemd/system ]; then
  if [ "$DRY" = 1 ]; then say "note: systemd is not PID 1 here ($(cat /proc/1/comm 2>/dev/null || echo unknown) is): a real install would stop at this point"
  else die "systemd is not the init system here (PID 1 is $(cat /proc/1/comm 2>/dev/null || echo unknown)), so the service could not run: install on a machine booted with systemd, or try it with --prefix DIR (no systemctl)"; fi
fi
NODE="$(command -v node || true)"
[ -n "$NODE" ] || die 'node not found: install Node.js 20 or later (docs/getting-started.md "Get Node 20 or later": Debian 12 ships 18)'
NODE="$(readlink -f "$NODE")"
"$NODE" -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)' ||
  die "$NODE is Node $("$NODE" --version); picoharness needs 20 or later (on Debian 12: NodeSource's nodejs 20, or the Node.js binary tarball; docs/getting-started.md \"Get Node 20 or later\")"
case "$NODE" in
  /home/*|/root/*) die "$NODE is under /home or /root, which the unit hides (ProtectHome=yes): install Node.js system-wide (docs/getting-started.md \"Get Node 20 or later\")" ;;
esac
say "node: $NODE ($("$NODE" --version)); source: $SRC"
if [ "$BUILD" = 1 ]; then
  # npm keeps its own record of what it installed (node_modules/.package-lock.json): when that is
  # newer than package-lock.json, the checkout's dependencies are installed already
  if [ -f "$SRC/node_modules/.package-lock.json" ] && [ "$SRC/node_modules/.package-lock.json" -nt "$SRC/package-lock.json" ]; then
    say "node_modules matches package-lock.json: not running npm ci again"
  else
    run_in "$SRC" npm ci --no-audit --no-fund
  fi
  run_in "$SRC" npm run build
else
  [ -f "$SRC/dist/src/cli/main.js" ] || die "--no-build but $SRC/dist/src/cli/main.js is missing: run npm run build first"
  say "using the build in $SRC/dist as it is (--no-build)"
fi

UPGRADE=0
[ -e "$APP/package.json" ] && UPGRADE=1
if [ "$UPGRADE" = 1 ]; then say "upgrading $APP"; else say "installing into $APP"; fi

# 2. the user and the group
if [ "$USERS" = 1 ]; then
  if getent group "$NAME" >/dev/null; then say "group $NAME exists"; else run groupadd --system "$NAME"; fi
  if id -u "$NAME" >/dev/null 2>&1; then say "user $NAME exists"
  else run useradd --system --gid "$NAME" --home-dir "/var/lib/$NAME" --no-create-home --shell /usr/sbin/nologin --comment 'picoharness job daemon' "$NAME"; fi
else
  say 'not creating the user and group (--no-users)'
fi

# 3. the app: staged, dependencies installed, then swapped in
run rm -rf "$APP.new"
run mkdir -p "$APP.new/dist" "$APP.new/providers"
for f in package.json package-lock.json .npmrc README.md; do run cp -p "$SRC/$f" "$APP.new/"; done
# only the files that ship: in a checkout, those git tracks (a model manifest provisioned into the
# checkout, a generated sample or an editor's backup is not part of the package)
shipped() {
  if [ -d "$SRC/.git" ] && command -v git >/dev/null; then
    git -C "$SRC" ls-files -- manifests prompts examples systemd docs 'providers/*.sh' | while IFS= read -r f; do [ -f "$SRC/$f" ] && printf '%s\n' "$f"; done
  else
    (cd "$SRC" && find manifests prompts examples systemd docs -type f && ls providers/*.sh)
  fi
}
SHIPPED="$(shipped)"
echo "+ copy the $(printf '%s\n' "$SHIPPED" | grep -c .) shipped files of manifests prompts examples systemd docs providers/*.sh"
if [ "$DRY" = 0 ]; then
  printf '%s\n' "$SHIPPED" | while IFS= read -r f; do
    mkdir -p "$APP.new/$(dirname "$f")" && cp -p "$SRC/$f" "$APP.new/$f"
  done
fi
for d in src providers; do run cp -Rp "$SRC/dist/$d" "$APP.new/dist/"; done
# the daemon's and the session worker's bundles (scripts/bundles.mjs), with the daemon's code cache
# the build made and any a worker of the checkout kept: V8 takes a cache only from the same node
# and flags, and ignores it otherwise
if [ -d "$SRC/dist/bundle" ]; then run cp -Rp "$SRC/dist/bundle" "$APP.new/dist/"; fi
if [ "$NPM" = 1 ]; then
  # the dependencies npm ci installed for the build, less the devDependencies: npm runs once
  run cp -Rp "$SRC/node_modules" "$APP.new/node_modules"
  run_in "$APP.new" npm prune --omit=dev --no-audit --no-fund
  # what a production box never uses: other platforms' llama.cpp, sources, build leftovers
  run sh "$APP.new/systemd/prune-deps.sh" "$APP.new"
elif [ -n "$LINK_DEPS" ]; then
  run ln -s "$(readlink -f "$LINK_DEPS/node_modules")" "$APP.new/node_modules"
else
  say 'not installing the dependencies (--no-npm): the app will not run until `npm ci --omit=dev` runs in it'
fi
if [ "$USERS" = 1 ]; then run chown -R root:root "$APP.new"; fi
run chmod -R go-w "$APP.new"
if [ "$UPGRADE" = 1 ]; then
  sysctl stop "$NAME.service"
  run rm -rf "$APP.old"
  run mv "$APP" "$APP.old"
fi
run mv "$APP.new" "$APP"
run rm -rf "$APP.old"

# 4. pico on PATH
run mkdir -p "$(dirname "$BIN")"
WRAPPER="#!/bin/sh
# picoharness: installed by systemd/install.sh. The root is $ROOT unless PICO_ROOT or --root says otherwise.
PICO_ROOT=\"\${PICO_ROOT:-$ROOT}\" exec $NODE $APP/dist/src/cli/main.js \"\$@\"
"
echo "+ write $BIN"
if [ "$DRY" = 0 ]; then printf '%s' "$WRAPPER" > "$BIN.tmp" && chmod 0755 "$BIN.tmp" && mv "$BIN.tmp" "$BIN"; fi

# 5. the root
if [ -L "$ROOT" ]; then
  # made by the earlier DynamicUser unit: /var/lib/picoharness -> private/picoharness, owned by a
  # uid that no longer exists; move it back and give it to the user picoharness
  OLD_ROOT="$(readlink -f "$ROOT")"
  say "$ROOT is a link to $OLD_ROOT (a root of the earlier DynamicUser unit): moving it back"
  sysctl stop "$NAME.service"
  run rm "$ROOT"
  run mv "$OLD_ROOT" "$ROOT"
  if [ "$USERS" = 1 ]; then run chown -R "$NAME:$NAME" "$ROOT"; fi
fi
run mkdir -p "$ROOT"
if [ "$USERS" = 1 ]; then run chown "$NAME:$NAME" "$ROOT"; fi
if [ -d "$ROOT/manifests" ]; then
  say "$ROOT is initialised already: kept as it is (to add shipped defaults that are new in this version: sudo -u $NAME pico init $ROOT; it never overwrites a file)"
else
  as_service "$NODE" "$APP/dist/src/cli/main.js" init "$ROOT"
fi
for d in models sessions/inbox; do
  if [ "$USERS" = 1 ]; then as_service mkdir -p "$ROOT/$d"; else run mkdir -p "$ROOT/$d"; fi
done
run chmod 0750 "$ROOT" "$ROOT/models"
run chmod 2770 "$ROOT/sessions/inbox"

# 6. the unit
run mkdir -p "$(dirname "$UNIT")"
echo "+ write $UNIT (node: $NODE, app: $APP)"
if [ "$DRY" = 0 ]; then
  sed -e "s#/usr/bin/node #$NODE #" -e "s#/opt/picoharness/#$APP/#g" "$SRC/systemd/$NAME.service" > "$UNIT.tmp"
  chmod 0644 "$UNIT.tmp" && mv "$UNIT.tmp" "$UNIT"
fi
sysctl daemon-reload
if [ "$UPGRADE" = 1 ]; then sysctl enable "$NAME.service"; sysctl restart "$NAME.service"
else sysctl enable --now "$NAME.service"; fi

if [ "$DRY" = 1 ]; then
  # a dry run says what it was: nothing above ran, so nothing is installed
  say "dry run: nothing was changed; a real $(if [ "$UPGRADE" = 1 ]; then echo upgrade; else echo install; fi) would run the steps above, giving: app $APP, command $BIN, root $ROOT, unit $UNIT"
  exit 0
fi
say "done. $(if [ "$UPGRADE" = 1 ]; then echo upgraded; else echo installed; fi): app $APP, command $BIN, root $ROOT, unit $UNIT"
say "let a person submit jobs and read results: sudo usermod -aG $NAME USER (then log in again)"
say "logs: journalctl -u $NAME -f; warnings and errors only: journalctl -u $NAME -p warning"
