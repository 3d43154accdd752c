#!/usr/bin/env bash
# Make sure the machine's PostgreSQL and Redis answer; start them if they are stopped.
# Used by `make test` (and so by .ci/run). Idempotent.
set -euo pipefail

PGHOST_=${PGHOST:-127.0.0.1}
REDIS_HOST=${REDIS_HOST:-127.0.0.1}

wait_for() { # name, tries, command...
  local name=$1 tries=$2; shift 2
  for _ in $(seq "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 1
  done
  echo "services: $name did not come up" >&2
  return 1
}

if ! pg_isready -h "$PGHOST_" -q 2>/dev/null; then
  echo "services: starting PostgreSQL" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || true
  fi
  wait_for PostgreSQL 30 pg_isready -h "$PGHOST_" -q
fi

if ! redis-cli -h "$REDIS_HOST" ping 2>/dev/null | grep -q PONG; then
  echo "services: starting Redis" >&2
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log
  wait_for Redis 30 sh -c "redis-cli -h $REDIS_HOST ping | grep -q PONG"
fi
echo "services: PostgreSQL and Redis are up" >&2
