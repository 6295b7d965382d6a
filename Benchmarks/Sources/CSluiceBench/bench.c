#include "CSluiceBench.h"

#include <curl/curl.h>
#include <zlib.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t count_bytes(char *data, size_t size, size_t n, void *user) {
    (void)data;
    *(size_t *)user += size * n;
    return size * n;
}

static double seconds_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* "keep": what any client that returns responses must do, as ../shared/bench/curlbench.c's keep
   mode: every header line and the body kept in memory, a fresh buffer per response. */
typedef struct { char *data; size_t length, capacity; } buffer;
typedef struct { buffer head, body; size_t *bytes; int keep; } response;

static void append(buffer *b, const char *data, size_t n) {
    if (b->length + n > b->capacity) {
        size_t capacity = b->capacity ? b->capacity * 2 : 4096;
        while (capacity < b->length + n) capacity *= 2;
        b->data = realloc(b->data, capacity);
        b->capacity = capacity;
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
}

static size_t keep_body(char *data, size_t size, size_t n, void *user) {
    response *r = user;
    *r->bytes += size * n;
    if (r->keep) append(&r->body, data, size * n);
    return size * n;
}

static size_t keep_head(char *data, size_t size, size_t n, void *user) {
    response *r = user;
    if (r->keep) append(&r->head, data, size * n);
    return size * n;
}

/* A response is done with: its buffers are given back, as a client hands them on and drops them. */
static void finish(response *r) {
    free(r->head.data);
    free(r->body.data);
    r->head = (buffer){0};
    r->body = (buffer){0};
}

/* A URL with a query goes as CurlTransport sends it: the part before the `?` as the URL, the path
   and query as the request target. curl 7.88 formats a URL's query into the head a byte at a time
   through its printf, and copies a request target whole: C pays for the same bytes the cheapest way. */
static void set_url(CURL *handle, const char *url) {
    const char *query = strchr(url, '?');
    const char *authority = strstr(url, "://");
    const char *path = authority ? strchr(authority + 3, '/') : NULL;
    if (!query || !path || path > query) {
        curl_easy_setopt(handle, CURLOPT_URL, url);
        return;
    }
    char *base = strndup(url, (size_t)(query - url));
    curl_easy_setopt(handle, CURLOPT_URL, base); /* curl keeps its own copy */
    curl_easy_setopt(handle, CURLOPT_REQUEST_TARGET, path);
    free(base);
}

/* The CA that signed an https URL's server (`SLUICE_BENCH_CA`, read once a run), or NULL. */
static const char *trusted_ca = NULL;

static CURL *make_handle(const char *url, response *r, struct curl_slist *fields) {
    CURL *handle = curl_easy_init();
    if (fields) curl_easy_setopt(handle, CURLOPT_HTTPHEADER, fields);
    if (trusted_ca) curl_easy_setopt(handle, CURLOPT_CAINFO, trusted_ca);
    set_url(handle, url);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, keep_body);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, keep_head);
    curl_easy_setopt(handle, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    return handle;
}

static double run(const char *url, int count, int concurrency, int keep, size_t *bytes, struct curl_slist *fields);

double sluice_bench_libcurl(const char *url, int count, int concurrency, int keep, size_t *bytes, const char *const *fields, int field_count) {
    curl_global_init(CURL_GLOBAL_ALL);
    trusted_ca = getenv("SLUICE_BENCH_CA");
    if (trusted_ca && !*trusted_ca) trusted_ca = NULL;
    *bytes = 0;
    struct curl_slist *list = NULL;
    for (int i = 0; i < field_count; i++) list = curl_slist_append(list, fields[i]);
    double seconds = run(url, count, concurrency, keep, bytes, list);
    curl_slist_free_all(list);
    return seconds;
}

static double run(const char *url, int count, int concurrency, int keep, size_t *bytes, struct curl_slist *fields) {
    double start = seconds_now();
    if (concurrency <= 1) {
        response r = { .bytes = bytes, .keep = keep };
        CURL *handle = make_handle(url, &r, fields);
        for (int i = 0; i < count; i++) {
            CURLcode result = curl_easy_perform(handle);
            finish(&r);
            if (result != CURLE_OK) { curl_easy_cleanup(handle); return -1; }
        }
        curl_easy_cleanup(handle);
        return seconds_now() - start;
    }
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)concurrency);
    int started = 0, done = 0, failed = 0;
    response *responses = calloc((size_t)concurrency, sizeof(response));
    for (int i = 0; i < concurrency && started < count; i++, started++) {
        responses[i] = (response){ .bytes = bytes, .keep = keep };
        CURL *handle = make_handle(url, &responses[i], fields);
        curl_easy_setopt(handle, CURLOPT_PRIVATE, &responses[i]);
        curl_multi_add_handle(multi, handle);
    }
    while (done < count) {
        int running = 0, queued = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *handle = message->easy_handle;
            if (message->data.result != CURLE_OK) failed = 1;
            response *r = NULL;
            curl_easy_getinfo(handle, CURLINFO_PRIVATE, (char **)&r);
            if (r) finish(r);
            done++;
            curl_multi_remove_handle(multi, handle);
            if (started < count) { curl_multi_add_handle(multi, handle); started++; }
            else curl_easy_cleanup(handle);
        }
        if (done < count) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    curl_multi_cleanup(multi);
    free(responses);
    return failed ? -1 : seconds_now() - start;
}

size_t sluice_bench_gzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity) {
    z_stream stream = {0};
    if (deflateInit2(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = deflate(&stream, Z_FINISH);
    size_t produced = stream.total_out;
    deflateEnd(&stream);
    return status == Z_STREAM_END ? produced : 0;
}

size_t sluice_bench_gunzip(const unsigned char *input, size_t length, unsigned char *output, size_t capacity) {
    z_stream stream = {0};
    if (inflateInit2(&stream, 15 + 16) != Z_OK) return 0;
    stream.next_in = (unsigned char *)input;
    stream.avail_in = (uInt)length;
    stream.next_out = output;
    stream.avail_out = (uInt)capacity;
    int status = inflate(&stream, Z_FINISH);
    size_t produced = stream.total_out;
    inflateEnd(&stream);
    return status == Z_STREAM_END ? produced : 0;
}
