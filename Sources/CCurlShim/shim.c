#define _GNU_SOURCE
#include <pthread.h>
#include "CCurlShim.h"

CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_share(CURL *handle, CURLSH *share) { return curl_easy_setopt(handle, CURLOPT_SHARE, share); }
CURLcode sluice_easy_setopt_data_callback(CURL *handle, CURLoption option, sluice_data_callback callback) { return curl_easy_setopt(handle, option, callback); }
CURLcode sluice_easy_setopt_xferinfo(CURL *handle, sluice_xferinfo_callback callback) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback); }


CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
CURLSHcode sluice_share_setopt_long(CURLSH *share, CURLSHoption option, long value) { return curl_share_setopt(share, option, value); }

size_t sluice_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
size_t sluice_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
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

void sluice_set_thread_name(const char *name) { pthread_setname_np(pthread_self(), name); }
