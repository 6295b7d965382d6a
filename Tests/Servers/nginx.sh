#!/usr/bin/env bash
# nginx for the interop tests and the benchmark, on a free 127.0.0.1 port.
#   nginx.sh up DIR     installs nginx-light (and openssl) if missing, starts nginx, writes its base
#                       URL to DIR/nginx.url and the variables the tests read to DIR/nginx.env
#   nginx.sh down DIR   stops it
# It serves small.json (1 KB), big.bin (1 MiB) and a few scripted paths (redirects, statuses) on
# three ports: plain HTTP/1.1, TLS with HTTP/2 by ALPN (a certificate from a CA made here), and
# h2c (HTTP/2 without TLS, prior knowledge).
set -euo pipefail
action=${1:?up|down} dir=${2:?state directory}
case "$action" in
down)
  if [ -f "$dir/nginx.pid" ]; then kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true; fi
  exit 0 ;;
up) ;;
*) echo "usage: $0 up|down DIR" >&2; exit 2 ;;
esac

sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
if ! command -v nginx >/dev/null; then
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q nginx-light >/dev/null \
    || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q nginx >/dev/null
fi
if ! command -v openssl >/dev/null; then
  $sudo apt-get update -q >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q openssl >/dev/null
fi

mkdir -p "$dir/www" "$dir/tmp"
# nginx workers run as an unprivileged user: they must be able to read the files.
chmod 755 "$dir" "$dir/www"
python3 - "$dir/www" <<'PY'
import json, random, sys
d = sys.argv[1]
json.dump({"items": [{"id": i, "name": "item %d" % i, "tags": ["a", "b"]} for i in range(20)]}, open(d + "/small.json", "w"))
random.seed(7)
open(d + "/big.bin", "wb").write(random.randbytes(1 << 20))
PY
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=$(free_port) tls_port=$(free_port) h2c_port=$(free_port) proxy_port=$(free_port) mtls_port=$(free_port)

# A CA and a certificate for 127.0.0.1 signed by it; the pin is the SHA-256 of the server's public key.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=Sluice Test CA" \
  -keyout "$dir/ca.key" -out "$dir/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' > "$dir/san.ext"
openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 \
  -extfile "$dir/san.ext" -out "$dir/server.pem" 2>/dev/null
pin="sha256//$(openssl x509 -in "$dir/server.pem" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64)"
# A client certificate from the same CA (PEM, and P12 with a password) for the mutual-TLS port.
openssl req -newkey rsa:2048 -nodes -subj "/CN=sluice-client" -keyout "$dir/client.key" -out "$dir/client.csr" 2>/dev/null
openssl x509 -req -in "$dir/client.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 2 -out "$dir/client.pem" 2>/dev/null
openssl pkcs12 -export -in "$dir/client.pem" -inkey "$dir/client.key" -passout pass:sluice-secret -out "$dir/client.p12" 2>/dev/null
chmod 644 "$dir"/*.pem "$dir"/*.key "$dir"/*.p12
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 10000000;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  default_type application/octet-stream;
  types { application/json json; }
  server {
    listen 127.0.0.1:$port;
    listen 127.0.0.1:$tls_port ssl http2;
    listen 127.0.0.1:$h2c_port http2;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate $dir/server.pem;
    ssl_certificate_key $dir/server.key;
    root $dir/www;
    location / { add_header Cache-Control "max-age=60"; }
    location = /redirect { return 302 /small.json; }
    location = /redirect-loop { return 302 /redirect-loop; }
    location = /redirect-ftp { return 302 ftp://127.0.0.1/x; }
    location = /status/503 { return 503 "busy\n"; }
    # gzip answers that must be revalidated each time (the soak run).
    location /gzip/ { alias $dir/www/; gzip on; gzip_types application/json; gzip_min_length 1; add_header Cache-Control "no-cache"; }
    # For the cache: stored, but validated on every use (ETag and Last-Modified; Last-Modified only).
    location = /validate/etag.json { alias $dir/www/small.json; add_header Cache-Control "no-cache"; }
    location = /validate/modified.json { alias $dir/www/small.json; etag off; add_header Cache-Control "no-cache"; }
  }
  # Mutual TLS: a client certificate from the test CA is required.
  server {
    listen 127.0.0.1:$mtls_port ssl;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_certificate $dir/server.pem;
    ssl_certificate_key $dir/server.key;
    ssl_client_certificate $dir/ca.pem;
    ssl_verify_client on;
    root $dir/www;
  }
  # A forward proxy for plain HTTP to loopback targets (absolute-form requests), marking what it relays.
  server {
    listen 127.0.0.1:$proxy_port;
    location / {
      proxy_pass http://\$http_host;
      proxy_set_header Host \$http_host;
      add_header X-Relayed-By sluice-test-proxy always;
    }
  }
}
CONF
nginx -c "$dir/nginx.conf" -e "$dir/nginx-error.log"
for _ in $(seq 50); do
  if python3 -c "import urllib.request; urllib.request.build_opener(urllib.request.ProxyHandler({})).open('http://127.0.0.1:$port/small.json', timeout=1)" 2>/dev/null; then
    echo "http://127.0.0.1:$port" > "$dir/nginx.url"
    cat > "$dir/nginx.env" <<ENV
export SLUICE_NGINX_URL=http://127.0.0.1:$port
export SLUICE_NGINX_ROOT=$dir/www
export SLUICE_NGINX_TLS_URL=https://127.0.0.1:$tls_port
export SLUICE_NGINX_H2C_URL=http://127.0.0.1:$h2c_port
export SLUICE_NGINX_CA=$dir/ca.pem
export SLUICE_NGINX_PIN=$pin
export SLUICE_NGINX_PROXY=http://127.0.0.1:$proxy_port
export SLUICE_NGINX_MTLS_URL=https://127.0.0.1:$mtls_port
export SLUICE_NGINX_CLIENT_PEM=$dir/client.pem
export SLUICE_NGINX_CLIENT_KEY=$dir/client.key
export SLUICE_NGINX_CLIENT_P12=$dir/client.p12
ENV
    exit 0
  fi
  sleep 0.1
done
echo "nginx did not come up on port $port:" >&2
cat "$dir/nginx-error.log" >&2 || true
exit 1
