# The proxy in front of the app (docker-compose.yml's `proxy`): Debian's nginx, as the tests run
# it (tests/test_slow_clients.py), with deploy/nginx.conf as its one site.
FROM debian:bookworm-slim

RUN apt-get update && apt-get install -y --no-install-recommends nginx && rm -rf /var/lib/apt/lists/* \
    && ln -sf /dev/stderr /var/log/nginx/error.log \
    && sed -i 's/worker_connections [0-9]*;/worker_connections 4096;/' /etc/nginx/nginx.conf \
    && rm /etc/nginx/sites-enabled/default
COPY deploy/nginx.conf /etc/nginx/conf.d/assistant.conf
EXPOSE 80
CMD ["nginx", "-g", "daemon off;"]
