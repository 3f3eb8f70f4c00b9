/* The host monitor's replay of a folder a live run saved (core/monitor/replay.h):
 * build/host/iommon --replay DIR [commands]. */
#ifndef IOMMON_HOST_REPLAY_H
#define IOMMON_HOST_REPLAY_H

/* Makes the folder the machine the host platform describes: NULL, or why
 * the folder cannot be read at all (each problem with one of its files
 * is printed and the file left out). */
const char *host_replay_load(const char *dir);

#endif
