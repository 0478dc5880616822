#!/usr/bin/env bash
# A real S3-compatible server for the integration tests: OpenStack Swift from Debian with its
# s3api middleware (real SigV4 checks, multipart uploads through SLO), all on 127.0.0.1.
#
#   S3 endpoint  http://127.0.0.1:18080   region us-east-1, path-style buckets
#   credentials  access key test:tester, secret testing (tempauth user test:tester / testing)
#
# One ring each for accounts, containers and objects, one replica on one device (a folder), no
# replicators, auditors or updaters. Installs the packages when missing, then starts memcached and
# the four servers unless the proxy already answers; safe to run again (a running Swift is left
# alone). `.ci/swift.sh stop` stops what this script started; `.ci/swift.sh reset` also deletes
# the stored objects, config and rings.
#
# Everything lives under STATE (not /tmp): config, rings, the device, pid files and console logs.
# The daemons drop privileges to the Debian `swift` user, which owns the device folder. The
# Debian files in /etc/swift are not used or changed: every server gets `swift_dir = $STATE/etc`,
# which also makes Swift read $STATE/etc/swift.conf.
set -euo pipefail

STATE=/var/lib/listmatch-test-state/swift
ETC="$STATE/etc"
DEVICES="$STATE/node"
RUN="$STATE/run"
LOG="$STATE/log"
PROXY_PORT=18080
OBJECT_PORT=16200
CONTAINER_PORT=16201
ACCOUNT_PORT=16202
MEMCACHED_PORT=11219
# Bumped whenever the generated config or rings change, so that an older setup is rebuilt.
LAYOUT_VERSION=1
PACKAGES=(swift swift-proxy swift-object swift-container swift-account memcached)
SERVERS=(account container object proxy)

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
log() { echo "swift: $*"; }

healthy() { [ "$(curl -fsS -m 2 "http://127.0.0.1:$PROXY_PORT/healthcheck" 2>/dev/null)" = "OK" ]; }

# Round trip through the Swift API as the test user: proves that the proxy, tempauth and the
# account, container and object servers all work (the healthcheck only answers for the proxy).
round_trip() {
  local headers token url
  headers=$(curl -fsS -m 5 -D - -o /dev/null -H 'X-Auth-User: test:tester' -H 'X-Auth-Key: testing' \
    "http://127.0.0.1:$PROXY_PORT/auth/v1.0" 2>/dev/null) || return 1
  token=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Xx]-[Aa]uth-[Tt]oken: //p')
  url=$(printf '%s' "$headers" | tr -d '\r' | sed -n 's/^[Xx]-[Ss]torage-[Uu]rl: //p')
  [ -n "$token" ] && [ -n "$url" ] || return 1
  curl -fsS -m 5 -o /dev/null -X PUT -H "X-Auth-Token: $token" "$url/ci-probe" &&
    curl -fsS -m 5 -o /dev/null -X PUT -H "X-Auth-Token: $token" --data-binary probe "$url/ci-probe/probe" &&
    curl -fsS -m 5 -o /dev/null -X DELETE -H "X-Auth-Token: $token" "$url/ci-probe/probe" &&
    curl -fsS -m 5 -o /dev/null -X DELETE -H "X-Auth-Token: $token" "$url/ci-probe"
}

stop_all() {
  local name pid
  for name in "${SERVERS[@]}" memcached; do
    [ -f "$RUN/$name.pid" ] || continue
    pid=$(cat "$RUN/$name.pid")
    # Each daemon was started as the leader of its own process group (setsid): stop the group,
    # which includes the worker processes it forked. Only when the pid is still ours (its command
    # line names our config or memcached port): after a reboot the number may belong to another.
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qE -- "$ETC/|-p $MEMCACHED_PORT"; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    fi
    rm -f "$RUN/$name.pid"
  done
  # Wait for them to release their ports.
  local deadline=$((SECONDS + 15))
  while pgrep -f -- "$ETC/" >/dev/null || pgrep -f -- "-p $MEMCACHED_PORT" >/dev/null; do
    [ "$SECONDS" -lt "$deadline" ] || break
    sleep 0.2
  done
}

install_packages() {
  local missing=() package
  for package in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  log "installing Debian ${missing[*]}"
  as_root apt-get update -qq >/dev/null
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  # In containers policy-rc.d keeps the packages' own services off. Under systemd they start with
  # the Debian config (proxy on 8080, the service's default port, and no rings): stop them.
  if [ -d /run/systemd/system ]; then
    local units
    units=$(systemctl list-unit-files 'swift-*.service' --no-legend 2>/dev/null | awk '{print $1}')
    # shellcheck disable=SC2086 # one word per unit
    [ -z "$units" ] || as_root systemctl disable --now $units >/dev/null 2>&1 || true
  fi
}

# Swift keeps object metadata in extended attributes (user.swift.metadata*); without them every
# object PUT fails. ext4 and XFS have them; some overlay or tmpfs setups do not, so fall back to
# an ext4 image mounted through a loop device (needs root and a loop device).
prepare_device() {
  local device="$DEVICES/d1" probe
  mkdir -p "$device"
  if mountpoint -q "$device"; then return 0; fi
  probe="$device/.xattr-probe"
  if [ "${SWIFT_TEST_LOOPBACK:-}" != 1 ] && touch "$probe" &&
    /usr/bin/python3 -c 'import os, sys; os.setxattr(sys.argv[1], "user.swift.probe", b"1")' "$probe" 2>/dev/null; then
    rm -f "$probe"
    return 0
  fi
  rm -f "$probe"
  log "no user xattrs in $DEVICES (or SWIFT_TEST_LOOPBACK=1): using a loop-mounted ext4 image"
  if [ ! -f "$STATE/device.img" ]; then
    truncate -s 4G "$STATE/device.img"
    mkfs.ext4 -q -F "$STATE/device.img"
  fi
  as_root mount -o loop,user_xattr "$STATE/device.img" "$device"
}

write_config() {
  mkdir -p "$ETC" "$RUN" "$LOG"
  cat >"$ETC/swift.conf" <<EOF
[swift-hash]
swift_hash_path_suffix = listmatch-test
swift_hash_path_prefix = listmatch-test

[storage-policy:0]
name = Policy-0
default = yes

[swift-constraints]
EOF

  local kind port
  for kind in account container object; do
    case $kind in
      account) port=$ACCOUNT_PORT ;;
      container) port=$CONTAINER_PORT ;;
      object) port=$OBJECT_PORT ;;
    esac
    # mount_check = false: the device is a plain folder, not a mounted disk.
    cat >"$ETC/$kind-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $port
workers = 1
user = swift
swift_dir = $ETC
devices = $DEVICES
mount_check = false
log_name = $kind-server
log_level = WARNING

[pipeline:main]
pipeline = $kind-server

[app:$kind-server]
use = egg:swift#$kind
EOF
  done

  cat >"$ETC/proxy-server.conf" <<EOF
[DEFAULT]
bind_ip = 127.0.0.1
bind_port = $PROXY_PORT
workers = 1
user = swift
swift_dir = $ETC
log_name = proxy-server
log_level = WARNING

[pipeline:main]
pipeline = catch_errors gatekeeper healthcheck proxy-logging cache listing_formats s3api tempauth copy slo dlo proxy-logging proxy-server

[app:proxy-server]
use = egg:swift#proxy
account_autocreate = true

[filter:catch_errors]
use = egg:swift#catch_errors

[filter:gatekeeper]
use = egg:swift#gatekeeper

[filter:healthcheck]
use = egg:swift#healthcheck

[filter:proxy-logging]
use = egg:swift#proxy_logging

[filter:cache]
use = egg:swift#memcache
memcache_servers = 127.0.0.1:$MEMCACHED_PORT

[filter:listing_formats]
use = egg:swift#listing_formats

# SigV4 region: the signatures of requests and presigned URLs name it. Path-style buckets only
# (no storage_domain). Swift ACLs, not s3_acl, so allow_no_owner does not apply.
[filter:s3api]
use = egg:swift#s3api
location = us-east-1
s3_acl = false

[filter:tempauth]
use = egg:swift#tempauth
user_test_tester = testing .admin

[filter:copy]
use = egg:swift#copy

[filter:slo]
use = egg:swift#slo

[filter:dlo]
use = egg:swift#dlo
EOF
}

build_rings() {
  local kind port
  for kind in account container object; do
    [ -f "$ETC/$kind.ring.gz" ] && continue
    case $kind in
      account) port=$ACCOUNT_PORT ;;
      container) port=$CONTAINER_PORT ;;
      object) port=$OBJECT_PORT ;;
    esac
    rm -f "$ETC/$kind.builder"
    # 2^8 partitions, 1 replica, min_part_hours 1; one device d1 on this machine.
    swift-ring-builder "$ETC/$kind.builder" create 8 1 1 >/dev/null
    swift-ring-builder "$ETC/$kind.builder" add "r1z1-127.0.0.1:$port/d1" 100 >/dev/null
    swift-ring-builder "$ETC/$kind.builder" rebalance >/dev/null
  done
}

start_daemon() {
  local name=$1
  shift
  # fd 9 (the start lock) stays with this script, not with the daemons.
  setsid "$@" >>"$LOG/$name.log" 2>&1 </dev/null 9>&- &
  echo $! >"$RUN/$name.pid"
}

start_all() {
  start_daemon memcached memcached -u memcache -l 127.0.0.1 -p "$MEMCACHED_PORT" -U 0 -m 64
  local name
  for name in account container object; do
    start_daemon "$name" "/usr/bin/swift-$name-server" "$ETC/$name-server.conf" --verbose
  done
  start_daemon proxy /usr/bin/swift-proxy-server "$ETC/proxy-server.conf" --verbose
}

wait_ready() {
  local deadline=$((SECONDS + ${SWIFT_START_TIMEOUT_SECONDS:-60}))
  until healthy && round_trip 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "not ready after ${SWIFT_START_TIMEOUT_SECONDS:-60} s; last lines of the logs in $LOG:"
      tail -n 20 "$LOG"/*.log >&2 || true
      return 1
    fi
    sleep 0.5
  done
}

case "${1:-start}" in
  stop)
    stop_all
    exit 0
    ;;
  reset)
    stop_all
    sleep 1
    if mountpoint -q "$DEVICES/d1" 2>/dev/null; then as_root umount "$DEVICES/d1"; fi
    rm -rf "$STATE"
    log "removed $STATE"
    exit 0
    ;;
  start) ;;
  *)
    echo "usage: $0 [start|stop|reset]" >&2
    exit 2
    ;;
esac

if healthy; then
  log "already running on 127.0.0.1:$PROXY_PORT"
  exit 0
fi
# One start at a time (test files may try in parallel); the winner's Swift is then left alone.
mkdir -p "$STATE"
exec 9>"$STATE/.start.lock"
flock -w 180 9
if healthy; then
  log "already running on 127.0.0.1:$PROXY_PORT"
  exit 0
fi

install_packages
started=$SECONDS
if [ "$(cat "$STATE/layout-version" 2>/dev/null)" != "$LAYOUT_VERSION" ]; then
  # An older layout (other ports, other config): start from scratch.
  stop_all
  rm -f "$ETC"/*.ring.gz "$ETC"/*.builder
  echo "$LAYOUT_VERSION" >"$STATE/layout-version"
fi
# Daemons left from an earlier run that no longer answer are replaced.
stop_all
write_config
build_rings
prepare_device
chown -R swift:swift "$DEVICES"
start_all
wait_ready
log "ready on 127.0.0.1:$PROXY_PORT after $((SECONDS - started)) s (state in $STATE)"
