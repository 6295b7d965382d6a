#include "CSluiceBench.h"

#include <curl/curl.h>
#include <zlib.h>
#include <stdlib.h>
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

static CURL *make_handle(const char *url, size_t *bytes) {
    CURL *handle = curl_easy_init();
    curl_easy_setopt(handle, CURLOPT_URL, url);
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, count_bytes);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, bytes);
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    return handle;
}

double sluice_bench_libcurl(const char *url, int count, int concurrency, size_t *bytes) {
    curl_global_init(CURL_GLOBAL_ALL);
    *bytes = 0;
    double start = seconds_now();
    if (concurrency <= 1) {
        CURL *handle = make_handle(url, bytes);
        for (int i = 0; i < count; i++) {
            if (curl_easy_perform(handle) != CURLE_OK) { curl_easy_cleanup(handle); return -1; }
        }
        curl_easy_cleanup(handle);
        return seconds_now() - start;
    }
    CURLM *multi = curl_multi_init();
    curl_multi_setopt(multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)concurrency);
    int started = 0, done = 0, failed = 0;
    for (int i = 0; i < concurrency && started < count; i++, started++) {
        curl_multi_add_handle(multi, make_handle(url, bytes));
    }
    while (done < count) {
        int running = 0, queued = 0;
        curl_multi_perform(multi, &running);
        CURLMsg *message;
        while ((message = curl_multi_info_read(multi, &queued))) {
            if (message->msg != CURLMSG_DONE) continue;
            CURL *handle = message->easy_handle;
            if (message->data.result != CURLE_OK) failed = 1;
            done++;
            curl_multi_remove_handle(multi, handle);
            if (started < count) { curl_multi_add_handle(multi, handle); started++; }
            else curl_easy_cleanup(handle);
        }
        if (done < count) curl_multi_poll(multi, NULL, 0, 1000, NULL);
    }
    curl_multi_cleanup(multi);
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
