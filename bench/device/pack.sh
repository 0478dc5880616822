#!/usr/bin/env bash
# Packs what a lent machine (no network, nothing installed) needs to run benchmarks from this
# working tree: the Node binary of ~/.node24 and the production node_modules, into .device-run/
# (ignored by git through .git/info/exclude; `run` carries it with carry=[".device-run"]).
set -euo pipefail
cd "$(dirname "$0")/../.."
grep -qx '.device-run/' .git/info/exclude 2>/dev/null || echo '.device-run/' >> .git/info/exclude
mkdir -p .device-run
node_bin="${NODE_BIN:-$HOME/.node24/node_modules/node/bin/node}"
"$node_bin" --version >/dev/null
xz -T2 -6 -c "$node_bin" > .device-run/node.xz
prod="$(mktemp -d)"
cp package.json package-lock.json "$prod/"
(cd "$prod" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >/dev/null)
tar -C "$prod" -cf - node_modules | xz -T2 -6 > .device-run/nm.tar.xz
rm -rf "$prod"
ls -la .device-run
