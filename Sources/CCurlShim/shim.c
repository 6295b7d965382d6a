#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <stddef.h>
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
CURLcode sluice_easy_setopt_trailer(CURL *handle, sluice_trailer_callback callback, void *user) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_TRAILERFUNCTION, callback);
    return code == CURLE_OK ? curl_easy_setopt(handle, CURLOPT_TRAILERDATA, user) : code;
}
int sluice_trailerfunc_ok(void) { return CURL_TRAILERFUNC_OK; }
/* A stream that takes every byte and keeps none: libcurl's error stream for every handle. */
static FILE *sluice_discard_stream;
static pthread_once_t sluice_discard_once = PTHREAD_ONCE_INIT;
static ssize_t sluice_discard_write(void *cookie, const char *buffer, size_t size) {
    (void)cookie;
    (void)buffer;
    return (ssize_t)size;
}
static void sluice_open_discard(void) {
    cookie_io_functions_t functions = {.read = NULL, .write = sluice_discard_write, .seek = NULL, .close = NULL};
    sluice_discard_stream = fopencookie(NULL, "w", functions);
    if (sluice_discard_stream) setvbuf(sluice_discard_stream, NULL, _IONBF, 0);
}
CURLcode sluice_easy_setopt_quiet(CURL *handle) {
    pthread_once(&sluice_discard_once, sluice_open_discard);
    if (!sluice_discard_stream) return CURLE_OUT_OF_MEMORY;
    return curl_easy_setopt(handle, CURLOPT_STDERR, sluice_discard_stream);
}

CURLcode sluice_easy_setopt_debug(CURL *handle, sluice_debug_callback callback) {
    CURLcode code = curl_easy_setopt(handle, CURLOPT_DEBUGFUNCTION, callback);
    if (code != CURLE_OK) return code;
    return curl_easy_setopt(handle, CURLOPT_VERBOSE, callback ? 1L : 0L);
}


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

int sluice_easy_size_download(CURL *handle, curl_off_t *received) {
    return curl_easy_getinfo(handle, CURLINFO_SIZE_DOWNLOAD_T, received) == CURLE_OK ? 1 : 0;
}

typedef struct {
    curl_socket_t fd;
    int addresses_known;
    int local_port, peer_port;
    char local_ip[INET6_ADDRSTRLEN], peer_ip[INET6_ADDRSTRLEN];   /* as curl names them */
    int http1;
} sluice_guarded_socket;

struct sluice_connection_guard {
    sluice_guarded_socket *sockets;
    size_t count, capacity;
    long dropped;
};

sluice_connection_guard *sluice_connection_guard_new(void) { return calloc(1, sizeof(sluice_connection_guard)); }

void sluice_connection_guard_free(sluice_connection_guard *guard) {
    if (!guard) return;
    free(guard->sockets);
    free(guard);
}

struct sluice_handle_state {
    sluice_connection_guard *guard;
    curl_socket_t socket;   /* the connection the pre-request callback found */
    curl_socket_t opened;   /* the socket this handle's transfer opened last */
    char error[CURL_ERROR_SIZE + 1];
};

static int sluice_guard_sockopt(void *user, curl_socket_t fd, curlsocktype purpose) {
    (void)purpose;
    sluice_handle_state *state = user;
    sluice_connection_guard *guard = state->guard;
    state->opened = fd;
    if (guard->count == guard->capacity) {
        size_t capacity = guard->capacity ? guard->capacity * 2 : 16;
        sluice_guarded_socket *grown = realloc(guard->sockets, capacity * sizeof(sluice_guarded_socket));
        if (!grown) return CURL_SOCKOPT_OK;   /* untracked: never checked, as before the guard */
        guard->sockets = grown;
        guard->capacity = capacity;
    }
    guard->sockets[guard->count++] = (sluice_guarded_socket){ .fd = fd };
    return CURL_SOCKOPT_OK;
}

static int sluice_guard_close(void *user, curl_socket_t fd) {
    sluice_connection_guard *guard = user;
    for (size_t i = 0; i < guard->count; i++) {
        if (guard->sockets[i].fd != fd) continue;
        guard->sockets[i] = guard->sockets[--guard->count];
        break;
    }
    return close(fd);
}

/* `address` as text and a port, in the forms curl reports (CURLINFO_PRIMARY_IP, …); 0 on failure. */
static int sluice_address_text(const struct sockaddr_storage *address, char *text, int *port) {
    const void *bytes;
    if (address->ss_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        bytes = &v4->sin_addr;
        *port = ntohs(v4->sin_port);
    } else if (address->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        bytes = &v6->sin6_addr;
        *port = ntohs(v6->sin6_port);
    } else {
        return 0;
    }
    return inet_ntop(address->ss_family, bytes, text, INET6_ADDRSTRLEN) != NULL;
}

/* The tracked socket of the connection between these two addresses, or NULL. */
static sluice_guarded_socket *sluice_guard_find(sluice_connection_guard *guard, const char *peer_ip, int peer_port,
                                                const char *local_ip, int local_port) {
    if (!peer_ip || !local_ip) return NULL;
    for (size_t i = 0; i < guard->count; i++) {
        sluice_guarded_socket *socket = &guard->sockets[i];
        if (!socket->addresses_known) {
            struct sockaddr_storage local, peer;
            socklen_t length = sizeof local;
            if (getsockname(socket->fd, (struct sockaddr *)&local, &length) != 0) continue;
            length = sizeof peer;
            if (getpeername(socket->fd, (struct sockaddr *)&peer, &length) != 0) continue;   /* not connected yet */
            if (!sluice_address_text(&local, socket->local_ip, &socket->local_port)) continue;
            if (!sluice_address_text(&peer, socket->peer_ip, &socket->peer_port)) continue;
            socket->addresses_known = 1;
        }
        if (socket->local_port == local_port && socket->peer_port == peer_port && strcmp(socket->local_ip, local_ip) == 0
            && strcmp(socket->peer_ip, peer_ip) == 0)
            return socket;
    }
    return NULL;
}

static int sluice_guard_prereq(void *user, char *peer_ip, char *local_ip, int peer_port, int local_port) {
    sluice_handle_state *state = user;
    sluice_connection_guard *guard = state->guard;
    sluice_guarded_socket *socket = sluice_guard_find(guard, peer_ip, peer_port, local_ip, local_port);
    state->socket = socket ? socket->fd : CURL_SOCKET_BAD;
    /* Only a connection known to speak HTTP/1.x: on HTTP/2, bytes waiting are other streams' frames. */
    if (!socket || !socket->http1) return CURL_PREREQFUNC_OK;
    struct pollfd input = { .fd = socket->fd, .events = POLLIN };
    if (poll(&input, 1, 0) > 0) {
        shutdown(socket->fd, SHUT_RDWR);
        socket->http1 = 0;
        guard->dropped++;
    }
    return CURL_PREREQFUNC_OK;
}

sluice_handle_state *sluice_connection_guard_attach(sluice_connection_guard *guard, CURL *handle) {
    sluice_handle_state *state = calloc(1, sizeof(sluice_handle_state));
    if (!state) return NULL;
    state->guard = guard;
    state->socket = CURL_SOCKET_BAD;
    state->opened = CURL_SOCKET_BAD;
    curl_easy_setopt(handle, CURLOPT_SOCKOPTFUNCTION, sluice_guard_sockopt);
    curl_easy_setopt(handle, CURLOPT_SOCKOPTDATA, state);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, sluice_guard_close);
    curl_easy_setopt(handle, CURLOPT_CLOSESOCKETDATA, guard);
    curl_easy_setopt(handle, CURLOPT_PREREQFUNCTION, sluice_guard_prereq);
    curl_easy_setopt(handle, CURLOPT_PREREQDATA, state);
    curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, state->error);
    return state;
}

void sluice_handle_state_free(sluice_handle_state *state) { free(state); }

char *sluice_handle_state_error(sluice_handle_state *state) { return state->error; }

int sluice_handle_state_socket(const sluice_handle_state *state) { return (int)state->socket; }

int sluice_handle_state_opened(const sluice_handle_state *state) { return (int)state->opened; }

void sluice_handle_state_reset(sluice_handle_state *state) {
    state->socket = CURL_SOCKET_BAD;
    state->opened = CURL_SOCKET_BAD;
    state->error[0] = 0;
}

size_t sluice_connection_guard_sockets(const sluice_connection_guard *guard, int *sockets, size_t capacity) {
    for (size_t i = 0; i < guard->count && i < capacity; i++) sockets[i] = (int)guard->sockets[i].fd;
    return guard->count;
}

long sluice_connection_guard_dropped(const sluice_connection_guard *guard) { return guard->dropped; }

int sluice_connection_guard_mark_http1(sluice_connection_guard *guard, CURL *handle) {
    char *peer_ip = NULL, *local_ip = NULL;
    long peer_port = 0, local_port = 0;
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_IP, &peer_ip);
    curl_easy_getinfo(handle, CURLINFO_PRIMARY_PORT, &peer_port);
    curl_easy_getinfo(handle, CURLINFO_LOCAL_IP, &local_ip);
    curl_easy_getinfo(handle, CURLINFO_LOCAL_PORT, &local_port);
    sluice_guarded_socket *socket = sluice_guard_find(guard, peer_ip, (int)peer_port, local_ip, (int)local_port);
    if (!socket) return -1;
    socket->http1 = 1;
    return socket->fd;
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

CURLcode sluice_cookies_add(CURLSH *share, const char *line) {
    CURL *handle = sluice_cookie_handle(share);
    if (!handle) return CURLE_OUT_OF_MEMORY;
    CURLcode result = curl_easy_setopt(handle, CURLOPT_COOKIELIST, line);
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

long sluice_curlauth_digest(void) { return (long)CURLAUTH_DIGEST; }
long sluice_curlauth_basic(void) { return (long)CURLAUTH_BASIC; }

int sluice_socket_consumed(int fd, unsigned long long *consumed) {
    if (fd < 0) return 0;
    struct tcp_info info;
    socklen_t length = sizeof info;
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return 0;
    if (length < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received) return 0;
    int unread = 0;
    if (ioctl(fd, FIONREAD, &unread) != 0 || unread < 0) unread = 0;
    /* Bytes that arrived between the two calls are counted as unread but not as received: never
       let that make the count wrap below zero (it read as 2^64 - n, framing past any limit). */
    unsigned long long received = (unsigned long long)info.tcpi_bytes_received;
    *consumed = received > (unsigned long long)unread ? received - (unsigned long long)unread : 0;
    return 1;
}
