#define _GNU_SOURCE
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "CCurlShim.h"

CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_share(CURL *handle, CURLSH *share) { return curl_easy_setopt(handle, CURLOPT_SHARE, share); }
CURLcode sluice_easy_setopt_data_callback(CURL *handle, CURLoption option, sluice_data_callback callback) { return curl_easy_setopt(handle, option, callback); }
CURLcode sluice_easy_setopt_xferinfo(CURL *handle, sluice_xferinfo_callback callback) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback); }
CURLcode sluice_easy_setopt_seek(CURL *handle, sluice_seek_callback callback) { return curl_easy_setopt(handle, CURLOPT_SEEKFUNCTION, callback); }


CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
CURLSHcode sluice_share_setopt_long(CURLSH *share, CURLSHoption option, long value) { return curl_share_setopt(share, option, value); }

size_t sluice_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
size_t sluice_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
size_t sluice_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
int sluice_pause_continue(void) { return CURLPAUSE_CONT; }

const char *sluice_curl_version_number(void) { return curl_version_info(CURLVERSION_NOW)->version; }
unsigned int sluice_curl_version_num(void) { return curl_version_info(CURLVERSION_NOW)->version_num; }

void sluice_easy_transfer_info(CURL *handle, sluice_transfer_info *info) {
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &info->response_code);
    curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &info->http_version);
    curl_easy_getinfo(handle, CURLINFO_REDIRECT_COUNT, &info->redirect_count);
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &info->num_connects);
    curl_easy_getinfo(handle, CURLINFO_NAMELOOKUP_TIME_T, &info->namelookup_us);
    curl_easy_getinfo(handle, CURLINFO_CONNECT_TIME_T, &info->connect_us);
    curl_easy_getinfo(handle, CURLINFO_APPCONNECT_TIME_T, &info->appconnect_us);
    curl_easy_getinfo(handle, CURLINFO_STARTTRANSFER_TIME_T, &info->starttransfer_us);
    curl_easy_getinfo(handle, CURLINFO_TOTAL_TIME_T, &info->total_us);
    curl_easy_getinfo(handle, CURLINFO_SIZE_UPLOAD_T, &info->size_upload);
    curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, &info->size_download);
    info->primary_ip = NULL;
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_IP, &info->primary_ip);
}

int sluice_drop_connection_with_pending_input(CURL *handle) {
    long version = 0;
    if (curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &version) != CURLE_OK) return 0;
    if (version != CURL_HTTP_VERSION_1_0 && version != CURL_HTTP_VERSION_1_1) return 0;   /* HTTP/2 frames its data */
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(handle, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK || fd == CURL_SOCKET_BAD) return 0;   /* closed */
    struct pollfd input = { .fd = fd, .events = POLLIN };
    if (poll(&input, 1, 0) <= 0) return 0;
    shutdown(fd, SHUT_RDWR);
    return 1;
}

void sluice_set_thread_name(const char *name) { pthread_setname_np(pthread_self(), name); }

/* A share handle used from several threads (the cookie jar of a transport with several event
   threads, and the helpers below) needs a lock per kind of data. */
typedef struct { pthread_mutex_t locks[CURL_LOCK_DATA_LAST]; } sluice_share_locks;

static void sluice_share_lock(CURL *handle, curl_lock_data data, curl_lock_access access, void *user) {
    (void)handle; (void)access;
    pthread_mutex_lock(&((sluice_share_locks *)user)->locks[data]);
}

static void sluice_share_unlock(CURL *handle, curl_lock_data data, void *user) {
    (void)handle;
    pthread_mutex_unlock(&((sluice_share_locks *)user)->locks[data]);
}

void *sluice_share_enable_locking(CURLSH *share) {
    sluice_share_locks *locks = malloc(sizeof(sluice_share_locks));
    if (!locks) return NULL;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&locks->locks[i], NULL);
    curl_share_setopt(share, CURLSHOPT_USERDATA, locks);
    curl_share_setopt(share, CURLSHOPT_LOCKFUNC, sluice_share_lock);
    curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, sluice_share_unlock);
    return locks;
}

void sluice_share_free_locking(void *locks) {
    if (!locks) return;
    sluice_share_locks *all = locks;
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_destroy(&all->locks[i]);
    free(all);
}

/* The cookie jar of a share, through a short-lived easy handle attached to it. */
static CURL *sluice_cookie_handle(CURLSH *share) {
    CURL *handle = curl_easy_init();
    if (!handle) return NULL;
    curl_easy_setopt(handle, CURLOPT_SHARE, share);
    curl_easy_setopt(handle, CURLOPT_COOKIEFILE, "");
    return handle;
}

CURLcode sluice_cookies_load(CURLSH *share, const char *path) {
    CURL *handle = sluice_cookie_handle(share);
    if (!handle) return CURLE_OUT_OF_MEMORY;
    CURLcode result = curl_easy_setopt(handle, CURLOPT_COOKIEFILE, path);
    if (result == CURLE_OK) result = curl_easy_setopt(handle, CURLOPT_COOKIELIST, "RELOAD");
    curl_easy_cleanup(handle);
    return result;
}

CURLcode sluice_cookies_flush(CURLSH *share, const char *path) {
    CURL *handle = sluice_cookie_handle(share);
    if (!handle) return CURLE_OUT_OF_MEMORY;
    CURLcode result = curl_easy_setopt(handle, CURLOPT_COOKIEJAR, path);
    if (result == CURLE_OK) result = curl_easy_setopt(handle, CURLOPT_COOKIELIST, "FLUSH");
    curl_easy_setopt(handle, CURLOPT_COOKIEJAR, NULL);   /* no second write at cleanup */
    curl_easy_cleanup(handle);
    return result;
}

struct curl_slist *sluice_cookies_list(CURLSH *share) {
    CURL *handle = sluice_cookie_handle(share);
    if (!handle) return NULL;
    struct curl_slist *list = NULL;
    if (curl_easy_getinfo(handle, CURLINFO_COOKIELIST, &list) != CURLE_OK) list = NULL;
    curl_easy_cleanup(handle);
    return list;
}

CURLcode sluice_cookies_clear(CURLSH *share) {
    CURL *handle = sluice_cookie_handle(share);
    if (!handle) return CURLE_OUT_OF_MEMORY;
    CURLcode result = curl_easy_setopt(handle, CURLOPT_COOKIELIST, "ALL");
    curl_easy_cleanup(handle);
    return result;
}
