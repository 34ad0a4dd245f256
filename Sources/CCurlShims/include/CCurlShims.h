#ifndef C_CURL_SHIMS_H
#define C_CURL_SHIMS_H

#include <curl/curl.h>

// Typed wrappers for curl's variadic setopt/getinfo calls, which Swift cannot call directly.

CURLcode c_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode c_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode c_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode c_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value);
CURLcode c_curl_easy_setopt_write_function(CURL *easy, curl_write_callback callback);
CURLcode c_curl_easy_setopt_read_function(CURL *easy, curl_read_callback callback);
CURLcode c_curl_easy_setopt_xferinfo_function(CURL *easy, curl_xferinfo_callback callback);
CURLcode c_curl_easy_setopt_opensocket_function(CURL *easy, curl_opensocket_callback callback);
CURLcode c_curl_easy_setopt_closesocket_function(CURL *easy, curl_closesocket_callback callback);
CURLcode c_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode c_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);
CURLcode c_curl_easy_getinfo_socket(CURL *easy, CURLINFO info, curl_socket_t *value);

CURLMcode c_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);
CURLMcode c_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode c_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback callback);
CURLMcode c_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback callback);

/// The result code of a CURLMSG_DONE message (a union member).
CURLcode c_curl_message_result(CURLMsg *message);

#endif
