#ifndef CRUBATCH_CLIBCURL_SHIM_H
#define CRUBATCH_CLIBCURL_SHIM_H
#include <curl/curl.h>
#include <netdb.h>
#include <sys/socket.h>

/* curl_easy_setopt is variadic, which Swift cannot call: one typed wrapper per argument type. */

static inline CURLcode crubatch_curl_set_string(CURL *curl, CURLoption option, const char *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode crubatch_curl_set_long(CURL *curl, CURLoption option, long value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode crubatch_curl_set_list(CURL *curl, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(curl, option, value);
}

static inline CURLcode crubatch_curl_set_pointer(CURL *curl, CURLoption option, void *value) {
    return curl_easy_setopt(curl, option, value);
}

typedef size_t (*crubatch_curl_read_callback)(char *buffer, size_t size, size_t count, void *context);

static inline CURLcode crubatch_curl_set_read_function(CURL *curl, crubatch_curl_read_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_READFUNCTION, callback);
}

/* Mailer: the debug callback (to capture the server's replies), curl_easy_getinfo (variadic) and
   curl_global_init with CURL_GLOBAL_DEFAULT (a macro Swift may not import). */

typedef int (*crubatch_curl_debug_callback)(CURL *curl, curl_infotype type, char *data, size_t size, void *context);

static inline CURLcode crubatch_curl_set_debug_function(CURL *curl, crubatch_curl_debug_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_DEBUGFUNCTION, callback);
}

static inline CURLcode crubatch_curl_get_long(CURL *curl, CURLINFO info, long *value) {
    return curl_easy_getinfo(curl, info, value);
}

static inline CURLcode crubatch_curl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

/* Mailer: the socket callbacks, so that a deadline can shut down the sockets libcurl uses. */

typedef int (*crubatch_curl_sockopt_callback)(void *context, curl_socket_t socket, curlsocktype purpose);

static inline CURLcode crubatch_curl_set_sockopt_function(CURL *curl, crubatch_curl_sockopt_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_SOCKOPTFUNCTION, callback);
}

typedef int (*crubatch_curl_closesocket_callback)(void *context, curl_socket_t socket);

static inline CURLcode crubatch_curl_set_closesocket_function(CURL *curl, crubatch_curl_closesocket_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_CLOSESOCKETFUNCTION, callback);
}

/* HTTPFetch: the write callback (to stream a body to a file under a size limit) and string
   information (where a refused redirect pointed). */

typedef size_t (*crubatch_curl_write_callback)(char *data, size_t size, size_t count, void *context);

static inline CURLcode crubatch_curl_set_write_function(CURL *curl, crubatch_curl_write_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode crubatch_curl_get_string(CURL *curl, CURLINFO info, const char **value) {
    return curl_easy_getinfo(curl, info, value);
}

/* HTTPFetch: the callback that opens each connection's socket, the redirects' too, so that a
   redirect into a private network is refused before anything is sent there; the address it is
   given as numeric text; and the socket libcurl would have opened. */

typedef curl_socket_t (*crubatch_curl_opensocket_callback)(void *context, curlsocktype purpose,
                                                           struct curl_sockaddr *address);

static inline CURLcode crubatch_curl_set_opensocket_function(CURL *curl, crubatch_curl_opensocket_callback callback) {
    return curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, callback);
}

static inline int crubatch_curl_address_text(const struct curl_sockaddr *address, char *text, socklen_t size) {
    return getnameinfo(&address->addr, address->addrlen, text, size, NULL, 0, NI_NUMERICHOST);
}

static inline curl_socket_t crubatch_curl_open_socket(const struct curl_sockaddr *address) {
    return socket(address->family, address->socktype, address->protocol);
}
#endif
