#!/usr/bin/env bash
# Starts the real services that the integration tests need, when they are not running yet.
# The embedded-default suite needs none so far; later backends (PostgreSQL, S3, SFTP, SMTP)
# add their start-up here.
set -euo pipefail
echo "ci: no external services needed by the current suite"
