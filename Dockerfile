# The shop's production image: the binary alone, on Amazon DynamoDB (no Java,
# no DynamoDB Local), as a non-root user. docker_test.go runs this file's
# build commands without a container engine, so CI proves they build.

# The browser files the shop embeds (htmx, Pico CSS): npm's dependencies
# only, not the test tools or DynamoDB Local (devDependencies).
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
RUN mkdir -p vendor && cp node_modules/htmx.org/dist/htmx.min.js vendor/htmx.min.js && cp node_modules/@picocss/pico/css/pico.min.css vendor/pico.min.css

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/vendor/ static/vendor/
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/shop .

# distroless/static: CA certificates, tzdata and a nonroot user (65532), no shell.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/shop /usr/local/bin/shop
USER nonroot:nonroot
WORKDIR /home/nonroot
ENV SHOP_ADDR=0.0.0.0:8080 \
    DYNAMODB_ENDPOINT=aws \
    SHOP_DATA_DIR=/home/nonroot/data \
    SHOP_DEMO=false \
    SHOP_SECURE_COOKIES=true
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 CMD ["shop", "healthcheck"]
ENTRYPOINT ["shop"]
CMD ["serve"]
