// The generated `Client`, `Operations` and `Components` (httpbin's operations) are written into
// this module at build time by swift-openapi-generator's plugin, from openapi.yaml and
// openapi-generator-config.yaml beside this file.
