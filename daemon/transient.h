/* SPDX-License-Identifier: MIT */
/* Transient LEDs: made over D-Bus (CreateLED), owned by a connection, never in a config file. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>
#include <systemd/sd-bus.h>

struct manager;
struct led;
struct led_conf;

/* The pseudo file name of a CreateLED definition in messages ("CreateLED:LINE: ..."). */
#define TRANSIENT_SOURCE "CreateLED"

/* The (key, value, key, value, ..., NULL) settings of CreateLED parsed as a configuration
 * section [name]: the same checks and messages as a file, each error as "KEY: message". */
int transient_parse(const char *name, char **pairs, struct led_conf **ret, char **ret_error);

/* Why name cannot be taken now (an LED exists, it is configured, the kernel has it), in a
 * malloc'ed message; 0 when it is free. */
int transient_name_in_use(struct manager *m, const char *name, char **ret_reason);

/* Create the LED of lc (taken). creator: the CreateLED call whose connection owns the LED
 * (it goes when that closes); NULL to keep it: then it is remembered under the runtime
 * directory, so that a crash restart adopts it again. uid: the caller's; one who is not
 * root is held to [uledsd]'s transient quotas (-EUSERS). -EEXIST: the name is in use. */
int transient_add(struct manager *m, struct led_conf *lc, char **pairs, sd_bus_message *creator,
		  uid_t uid, struct led **ret, char **ret_error);
/* Remove a transient LED (RemoveLED); -ENOENT when l is not transient. */
int transient_remove(struct manager *m, struct led *l);
bool transient_is(struct manager *m, const struct led *l);

/* The bus went away: every connection went with it, so the LEDs of tracked ones go too. */
void transient_bus_lost(struct manager *m);
/* At start, before the bus: adopt the --keep LEDs of the fd store again. */
void transient_restore(struct manager *m);
/* Orderly exit: forget every transient LED (their files too). */
void transient_free_all(struct manager *m);
