#!/usr/bin/env bash
# redis-server for the Redis cache store's tests, on a free 127.0.0.1 port.
#   redis.sh up DIR     installs redis-server if missing, starts it (no persistence; 64 MB with
#                       allkeys-lru eviction, as a cache should run), writes DIR/redis.env
#   redis.sh down DIR   stops it
set -euo pipefail
action=${1:?up|down} dir=${2:?state directory}
case "$action" in
down)
  # Waits for it to exit: it writes its log as it shuts down, and the caller removes DIR next.
  if [ -f "$dir/redis.pid" ]; then
    pid=$(cat "$dir/redis.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  fi
  exit 0 ;;
up) ;;
*) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac

sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
if ! command -v redis-server >/dev/null; then
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends redis-server >/dev/null
fi
mkdir -p "$dir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --bind 127.0.0.1 --port "$port" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" \
  --dir "$dir" --save "" --appendonly no --maxmemory 64mb --maxmemory-policy allkeys-lru
for _ in $(seq 50); do
  if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
    printf 'export SLUICE_REDIS_HOST=127.0.0.1\nexport SLUICE_REDIS_PORT=%s\n' "$port" > "$dir/redis.env"
    exit 0
  fi
  sleep 0.1
done
echo "redis-server did not come up on port $port:" >&2
cat "$dir/redis.log" >&2 || true
exit 1
