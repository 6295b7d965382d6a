#include "CCurlShim.h"

CURLcode sluice_easy_setopt_long(CURL *handle, CURLoption option, long value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_string(CURL *handle, CURLoption option, const char *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) { return curl_easy_setopt(handle, option, value); }
CURLcode sluice_easy_setopt_share(CURL *handle, CURLSH *share) { return curl_easy_setopt(handle, CURLOPT_SHARE, share); }
CURLcode sluice_easy_setopt_data_callback(CURL *handle, CURLoption option, sluice_data_callback callback) { return curl_easy_setopt(handle, option, callback); }
CURLcode sluice_easy_setopt_xferinfo(CURL *handle, sluice_xferinfo_callback callback) { return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback); }

CURLcode sluice_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode sluice_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) { return curl_easy_getinfo(handle, info, value); }
CURLcode sluice_easy_getinfo_string(CURL *handle, CURLINFO info, const char **value) { return curl_easy_getinfo(handle, info, (char **)value); }

CURLMcode sluice_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
CURLSHcode sluice_share_setopt_long(CURLSH *share, CURLSHoption option, long value) { return curl_share_setopt(share, option, value); }

size_t sluice_readfunc_abort(void) { return CURL_READFUNC_ABORT; }
size_t sluice_readfunc_pause(void) { return CURL_READFUNC_PAUSE; }
size_t sluice_writefunc_pause(void) { return CURL_WRITEFUNC_PAUSE; }
int sluice_pause_continue(void) { return CURLPAUSE_CONT; }

const char *sluice_curl_version_number(void) { return curl_version_info(CURLVERSION_NOW)->version; }
unsigned int sluice_curl_version_num(void) { return curl_version_info(CURLVERSION_NOW)->version_num; }
