// libcurl for Swift. curl_easy_setopt/getinfo are variadic: one typed wrapper per argument type.
#pragma once
#include <curl/curl.h>

static inline CURLcode aiden_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode aiden_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode aiden_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode aiden_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode aiden_curl_setopt_write(CURL *h, CURLoption o,
                                               size_t (*f)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(h, o, f);
}
static inline CURLcode aiden_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode aiden_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }

/// CURLVERSION_NOW is a macro naming an enum case; it does not import.
static inline curl_version_info_data *aiden_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }

/// CURL_GLOBAL_DEFAULT is a macro built from other macros; keep the choice in C.
static inline CURLcode aiden_curl_global_init_default(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }
