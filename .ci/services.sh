#!/usr/bin/env bash
# Installs and starts what the integration tests need, when it is not there yet. Later backends
# (PostgreSQL, S3, SFTP, SMTP) add their start-up here.
set -euo pipefail

# Installs Debian packages quietly, through sudo when not root (swift.sh has its own for its set).
apt_install() {
  local sudo=()
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  "${sudo[@]}" apt-get update -qq >/dev/null
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# Headless Chromium (Debian package) for the tests that open the HTML reports in a browser.
if ! command -v chromium >/dev/null 2>&1; then
  echo "ci: installing Debian chromium"
  apt_install chromium
fi
echo "ci: chromium $(chromium --version 2>/dev/null || echo missing)"

# OpenSSH server for the SFTP delivery tests. The tests start their own sshd (own config, loopback
# port, chrooted test user); the system's sshd is not started here.
if [ ! -x /usr/sbin/sshd ]; then
  echo "ci: installing Debian openssh-server"
  apt_install openssh-server
fi
echo "ci: $(/usr/sbin/sshd -V 2>&1 | head -n 1 || echo 'openssh-server missing')"
bash "$(dirname "$0")/swift.sh" # OpenStack Swift with s3api: the S3-compatible server of the object-storage tests

# PostgreSQL for the scaled-out backends' tests (metadata stores, queue, rate limiter). The
# machine's cluster normally runs already; start it (or install it) when it does not answer.
if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  if ! command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "ci: installing Debian postgresql"
    apt_install postgresql
  fi
  echo "ci: starting PostgreSQL"
  for version in $(ls /etc/postgresql); do
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  done
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
echo "ci: $(pg_isready -h 127.0.0.1 -p 5432 2>&1 || echo 'PostgreSQL not answering')"
