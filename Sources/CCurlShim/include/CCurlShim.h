// Typed entry points for libcurl's variadic setters and getters, which Swift cannot call directly.
#ifndef SLUICE_CCURLSHIM_H
#define SLUICE_CCURLSHIM_H

#include <curl/curl.h>

typedef size_t (*sluice_data_callback)(char *buffer, size_t size, size_t count, void *user);
typedef int (*sluice_xferinfo_callback)(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow);

CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode sluice_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value);
CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode sluice_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);
CURLcode sluice_easy_setopt_share(CURL *handle, CURLSH *share);
CURLcode sluice_easy_setopt_data_callback(CURL *handle, CURLoption option, sluice_data_callback callback);
CURLcode sluice_easy_setopt_xferinfo(CURL *handle, sluice_xferinfo_callback callback);
typedef int (*sluice_seek_callback)(void *user, curl_off_t offset, int origin);
/* CURLOPT_SEEKFUNCTION: curl rewinds the request body through it when it must send it again. */
CURLcode sluice_easy_setopt_seek(CURL *handle, sluice_seek_callback callback);
typedef int (*sluice_trailer_callback)(struct curl_slist **list, void *user);
/* CURLOPT_TRAILERFUNCTION and CURLOPT_TRAILERDATA: curl asks for a chunked request body's trailer
   fields once, before its last line, and frees the list. NULL for both turns it off. */
CURLcode sluice_easy_setopt_trailer(CURL *handle, sluice_trailer_callback callback, void *user);
/* CURL_TRAILERFUNC_OK, which is a macro. */
int sluice_trailerfunc_ok(void);
typedef int (*sluice_debug_callback)(CURL *handle, curl_infotype type, char *data, size_t size, void *user);
/* CURLOPT_STDERR set to a stream that keeps nothing (one per process): what libcurl would print
   without a debug callback (the verbose output of the handles it starts itself for DNS over HTTPS,
   which inherit VERBOSE and the error stream but, before 8.x, not the callback) reaches no
   terminal. THREATS §16. */
CURLcode sluice_easy_setopt_quiet(CURL *handle);
/* CURLOPT_DEBUGFUNCTION with CURLOPT_VERBOSE on (curl calls it only then), or both off for NULL. */
CURLcode sluice_easy_setopt_debug(CURL *handle, sluice_debug_callback callback);


CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLSHcode sluice_share_setopt_long(CURLSH *share, CURLSHoption option, long value);

/// CURL_READFUNC_ABORT and CURL_READFUNC_PAUSE, which are macros.
size_t sluice_readfunc_abort(void);
size_t sluice_readfunc_pause(void);
size_t sluice_writefunc_pause(void);
/// CURLPAUSE_CONT.
int sluice_pause_continue(void);
/// CURLAUTH_DIGEST and CURLAUTH_BASIC, which are macros with casts.
long sluice_curlauth_digest(void);
long sluice_curlauth_basic(void);

/// The bytes the kernel received on TCP socket `fd` that have been read from it (TCP_INFO's bytes
/// received, less what still waits in the receive queue); 0 when `fd` is no TCP socket, 1 with
/// `consumed` set otherwise.
int sluice_socket_consumed(int fd, unsigned long long *consumed);

/// The libcurl version string, e.g. "7.88.1" (CURLVERSION_NOW is a macro).
const char *sluice_curl_version_number(void);

/// The libcurl version as 0xXXYYZZ (CURLVERSION_NOW is a macro).
unsigned int sluice_curl_version_num(void);

/// Names the calling thread (at most 15 bytes show), for debuggers, `top -H` and /proc.
void sluice_set_thread_name(const char *name);

/// Everything CurlTransport reports about a finished transfer, read with one call.
typedef struct {
    long response_code;
    long http_version;
    long redirect_count;
    long num_connects;
    curl_off_t namelookup_us, connect_us, appconnect_us, starttransfer_us, total_us;
    curl_off_t size_upload, size_download;
    const char *primary_ip;
} sluice_transfer_info;

void sluice_easy_transfer_info(CURL *handle, sluice_transfer_info *info);

/// The body bytes curl has received so far on `handle`, before it undoes any coding
/// (`CURLINFO_SIZE_DOWNLOAD_T`); 1 with `received` set, 0 when curl cannot say.
int sluice_easy_size_download(CURL *handle, curl_off_t *received);

/* An event loop's record of the sockets its handles opened, used on the loop's thread only.
   Right before a request is sent on a reused HTTP/1.x connection (CURLOPT_PREREQFUNCTION), a
   connection that already has bytes to read is shut down: those bytes belong to no request (a
   body longer than its Content-Length, or a close), and the request would take them for its
   response. curl's send then fails and it sends the request again on a new connection; the
   server never saw it. The check runs where the connection is really reused, never on one
   another transfer already took (a check when a transfer ended could find the next transfer's
   response there, and drop a connection whose request had been answered). */
typedef struct sluice_connection_guard sluice_connection_guard;
sluice_connection_guard *sluice_connection_guard_new(void);
void sluice_connection_guard_free(sluice_connection_guard *guard);
/* What the loop keeps for one easy handle: its CURLOPT_ERRORBUFFER, the socket of the connection
   its current transfer was given (the pre-request callback sets it; -1 before), and the socket it
   opened last (the socket-option callback sets it): what the pool's figures are counted from. */
typedef struct sluice_handle_state sluice_handle_state;
/* Routes `handle`'s socket callbacks (CURLOPT_SOCKOPTFUNCTION, CURLOPT_CLOSESOCKETFUNCTION) and
   its pre-request callback to the guard, and sets its error buffer; returns the handle's state
   (free it with sluice_handle_state_free after curl_easy_cleanup), NULL when out of memory. */
sluice_handle_state *sluice_connection_guard_attach(sluice_connection_guard *guard, CURL *handle);
void sluice_handle_state_free(sluice_handle_state *state);
/* The handle's CURLOPT_ERRORBUFFER. */
char *sluice_handle_state_error(sluice_handle_state *state);
/* The socket of the connection the current transfer was given, -1 when it has none yet. */
int sluice_handle_state_socket(const sluice_handle_state *state);
/* The socket the handle's current transfer opened last (connecting, or connected), -1 when none. */
int sluice_handle_state_opened(const sluice_handle_state *state);
/* Before a transfer starts on the handle: no connection yet, no error. */
void sluice_handle_state_reset(sluice_handle_state *state);
/* The sockets the guard's handles have open, up to `capacity` of them written to `sockets`;
   returns how many there are. */
size_t sluice_connection_guard_sockets(const sluice_connection_guard *guard, int *sockets, size_t capacity);
/* `handle`'s transfer got an HTTP/1.x status line: its connection speaks HTTP/1.x, so pending
   bytes on it are never frames of other streams. Returns the connection's socket, -1 when it is
   not one the guard tracks. */
int sluice_connection_guard_mark_http1(sluice_connection_guard *guard, CURL *handle);
/* How many connections the guard has shut down for bytes left on them. */
long sluice_connection_guard_dropped(const sluice_connection_guard *guard);

/// Locks for a share handle used from several threads; returns what to free with
/// sluice_share_free_locking after curl_share_cleanup.
void *sluice_share_enable_locking(CURLSH *share);
void sluice_share_free_locking(void *locks);

/// A share's cookie jar: load a Netscape cookie file into it, write it to one, empty it.
CURLcode sluice_cookies_load(CURLSH *share, const char *path);
CURLcode sluice_cookies_flush(CURLSH *share, const char *path);
CURLcode sluice_cookies_clear(CURLSH *share);
/* Adds one cookie, a Netscape cookie-file line or a Set-Cookie: header line (CURLOPT_COOKIELIST). */
CURLcode sluice_cookies_add(CURLSH *share, const char *line);
/* Every cookie in the share, one Netscape cookie-file line each (CURLINFO_COOKIELIST); free the
   list with curl_slist_free_all. NULL when there are none or on failure. */
struct curl_slist *sluice_cookies_list(CURLSH *share);

#endif
