#include "CCurlShims.h"

CURLcode c_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) { return curl_easy_setopt(easy, option, value); }
CURLcode c_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) { return curl_easy_setopt(easy, option, value); }
CURLcode c_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) { return curl_easy_setopt(easy, option, value); }
CURLcode c_curl_easy_setopt_offset(CURL *easy, CURLoption option, curl_off_t value) { return curl_easy_setopt(easy, option, value); }
CURLcode c_curl_easy_setopt_write_function(CURL *easy, curl_write_callback callback) { return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, callback); }
CURLcode c_curl_easy_setopt_read_function(CURL *easy, curl_read_callback callback) { return curl_easy_setopt(easy, CURLOPT_READFUNCTION, callback); }
CURLcode c_curl_easy_setopt_xferinfo_function(CURL *easy, curl_xferinfo_callback callback) { return curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, callback); }
CURLcode c_curl_easy_setopt_opensocket_function(CURL *easy, curl_opensocket_callback callback) { return curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, callback); }
CURLcode c_curl_easy_setopt_closesocket_function(CURL *easy, curl_closesocket_callback callback) { return curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, callback); }
CURLcode c_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) { return curl_easy_getinfo(easy, info, value); }
CURLcode c_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) { return curl_easy_getinfo(easy, info, value); }
CURLcode c_curl_easy_getinfo_socket(CURL *easy, CURLINFO info, curl_socket_t *value) { return curl_easy_getinfo(easy, info, value); }

CURLMcode c_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) { return curl_multi_setopt(multi, option, value); }
CURLMcode c_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) { return curl_multi_setopt(multi, option, value); }
CURLMcode c_curl_multi_setopt_socket_function(CURLM *multi, curl_socket_callback callback) { return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, callback); }
CURLMcode c_curl_multi_setopt_timer_function(CURLM *multi, curl_multi_timer_callback callback) { return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, callback); }

CURLcode c_curl_message_result(CURLMsg *message) { return message->data.result; }
