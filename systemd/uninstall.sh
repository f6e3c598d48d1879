#!/usr/bin/env bash
# picoharness: stop and remove the service, /opt/picoharness and /usr/local/bin/pico; keep the
# root /var/lib/picoharness (jobs, results, models, memory) unless --purge. Same options as
# install.sh (--prefix DIR, --no-systemctl, --no-users, --dry-run); see install.sh --help.
exec "$(dirname "${BASH_SOURCE[0]}")/install.sh" --uninstall "$@"
