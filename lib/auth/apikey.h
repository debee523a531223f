/*
 * apikey.h: what the server (apikey.c, through ctxd.h) and the client tool (cli/setup.c)
 * share about API keys: their prefix. The functions of apikey.c are in ctxd.h.
 */
#ifndef APIKEY_H
#define APIKEY_H

#define APIKEY_PREFIX	"ctxd_"

#endif
