#!/usr/bin/env bash
# On a lent 16-core machine (bench/device/pack.sh first, then
#   run(command="bash bench/device/national.sh STEPS", carry=[".device-run"], timeout_s=600)):
# unpacks Node and the production node_modules, then runs `node bench/run-all.ts national` with
# the national sizes (NATIONAL_VOTERS, NATIONAL_LIST_ROWS, NATIONAL_WORKERS may be overridden).
# STEPS: `generate`, `import` and `match` in three calls (the files stay in /tmp/national while
# the machine is warm; a call may run 10 minutes), or several at once for smaller sizes.
set -euo pipefail
cd "$(dirname "$0")/../.."
steps="${1:-generate,import,match}"
out="${OUT:-/tmp/national-out}"
mkdir -p "$out"
exec > >(tee -a "$out/national.log") 2>&1
# xz where the image has it, else Python's lzma (the lent image always has python3).
unxz_to() {
  if command -v xz >/dev/null; then xz -dc "$1" > "$2"
  else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"; fi
}
if [ ! -x /tmp/node24/node ]; then
  mkdir -p /tmp/node24
  unxz_to .device-run/node.xz /tmp/node24/node
  chmod +x /tmp/node24/node
fi
export PATH="/tmp/node24:$PATH"
if [ ! -d node_modules ]; then
  unxz_to .device-run/nm.tar.xz /tmp/nm.tar
  tar -xf /tmp/nm.tar && rm -f /tmp/nm.tar
fi
echo "node $(node --version), $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB, $(df -h /tmp | awk 'NR==2 {print $4}') free in /tmp"
export NATIONAL_DIR="${NATIONAL_DIR:-/tmp/national}"
export NATIONAL_VOTERS="${NATIONAL_VOTERS:-50000000}"
export NATIONAL_LIST_ROWS="${NATIONAL_LIST_ROWS:-1000000}"
export NATIONAL_WORKERS="${NATIONAL_WORKERS:-1,2,4}"
export NATIONAL_STEPS="$steps"
start=$(date +%s)
node bench/run-all.ts national --runs 1 || status=$?
echo "national ($steps) took $(( $(date +%s) - start )) s"
cp bench/out/latest.md "$out/national-${steps//,/-}.md" 2>/dev/null || true
exit "${status:-0}"
