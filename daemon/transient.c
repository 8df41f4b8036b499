// SPDX-License-Identifier: MIT
/* Transient LEDs: parsed like a config section, owned by a D-Bus connection or kept, and
 * remembered under the runtime directory so that a crash restart adopts them again. */
#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf-load.h"
#include "conf-parse.h"
#include "conf.h"
#include "fdstore.h"
#include "led-name.h"
#include "led.h"
#include "log.h"
#include "manager.h"
#include "policy.h"
#include "state.h"
#include "string-util.h"
#include "transient.h"

struct transient_led {
	struct led *led;
	uid_t uid;	     /* the creator's; 0 (root) counts against no quota */
	sd_bus_track *track; /* the creator's connection; NULL: kept until RemoveLED */
	char *keep_file;     /* the file that remembers a kept LED, NULL for a tracked one */
};

struct transients {
	struct transient_led *v;
	size_t n;
	sd_event_source *gc; /* removes the LEDs whose creator went away, outside sd-bus's call */
};

static struct transients *transients(struct manager *m)
{
	if (!m->transient)
		m->transient = calloc(1, sizeof(struct transients));
	return m->transient;
}

static struct transient_led *transient_find(struct manager *m, const struct led *l)
{
	struct transients *t = m->transient;

	for (size_t i = 0; t && i < t->n; i++)
		if (t->v[i].led == l)
			return &t->v[i];
	return NULL;
}

bool transient_is(struct manager *m, const struct led *l)
{
	return transient_find(m, l) != NULL;
}

/* "CreateLED:3: message" names the line of the section we wrote; line 2 is the first pair. */
static char *key_error(char **pairs, const char *err)
{
	size_t n = strlen(TRANSIENT_SOURCE), npairs = strv_length(pairs) / 2;
	unsigned line;
	char *s = NULL;

	if (strncmp(err, TRANSIENT_SOURCE ":", n + 1) != 0 || sscanf(err + n + 1, "%u", &line) != 1)
		return strdup(err);
	err = strchr(err + n + 1, ':');
	err = err ? err + 1 + (err[1] == ' ') : "";
	if (line >= 2 && line - 2 < npairs)
		return asprintf(&s, "%s: %s", pairs[2 * (line - 2)], err) < 0 ? NULL : s;
	return strdup(err);
}

/* A key the section text can carry unchanged: inih splits at '=' and ':', ';' and '#' start
 * comments, '[' a section. A value may not break the line. */
static int check_pairs(char **pairs, char **ret_error)
{
	for (size_t i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2) {
		const char *k = pairs[i];

		if (!*k || strpbrk(k, "=:;#[] \t\r\n"))
			return error_setf(ret_error, -EINVAL,
					  "'%s' is not a setting: use a key of an LED section of "
					  "uledsd.conf(5), e.g. max_brightness or gpio.line.",
					  k);
		if (strpbrk(pairs[i + 1], "\r\n"))
			return error_setf(ret_error, -EINVAL,
					  "%s: a value may not contain a line break.", k);
	}
	return 0;
}

static int section_text(const char *name, char **pairs, char **ret, size_t *ret_len)
{
	FILE *f = open_memstream(ret, ret_len);

	if (!f)
		return -ENOMEM;
	fprintf(f, "[%s]\n", name);
	for (size_t i = 0; pairs && pairs[i] && pairs[i + 1]; i += 2)
		fprintf(f, "%s = %s\n", pairs[i], pairs[i + 1]);
	return fclose(f) == 0 ? 0 : -ENOMEM;
}

int transient_parse(const char *name, char **pairs, struct led_conf **ret, char **ret_error)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	_cleanup_free_ char *text = NULL;
	const char *reason;
	size_t len = 0;
	_cleanup_(fclosep) FILE *f = NULL;
	int r;

	*ret_error = NULL;
	if (!led_name_is_valid(name, &reason))
		return error_setf(ret_error, -EINVAL, "'%s' is not a valid LED name: %s.", name,
				  reason);
	if (streq(name, POLICY_SECTION))
		return error_setf(ret_error, -EINVAL,
				  "'%s' is not a valid LED name: [%s] is the section of uledsd's "
				  "own settings (uledsd.conf(5)).",
				  name, POLICY_SECTION);
	/* The settings become a section "[name]": inih ends it at the first ']' and would make
	 * "ax] ;" the LED "ax" (found by fuzz-bus-args). */
	if (strchr(name, ']'))
		return error_setf(ret_error, -EINVAL,
				  "'%s' is not a valid LED name: it contains ']', which a "
				  "configuration section cannot hold.",
				  name);
	r = check_pairs(pairs, ret_error);
	if (r < 0)
		return r;
	r = section_text(name, pairs, &text, &len);
	if (r >= 0)
		r = conf_new(&c);
	f = r >= 0 ? fmemopen(text, len, "r") : NULL;
	if (!f)
		return -ENOMEM;
	(void)conf_parse_stream(c, TRANSIENT_SOURCE, f);
	conf_finish(c);
	if (c->n_errors > 0) {
		*ret_error = key_error(pairs, c->errors[0]);
		return -EINVAL;
	}
	if (c->n_leds != 1)
		return error_setf(ret_error, -EINVAL, "No LED could be defined from the settings.");
	/* Whatever else the section syntax changes (spaces, comments) is refused the same way. */
	if (!streq(c->leds[0]->name, name))
		return error_setf(ret_error, -EINVAL,
				  "'%s' is not a valid LED name: a configuration section cannot "
				  "hold it as it is (it would be '%s').",
				  name, c->leds[0]->name);
	*ret = TAKE_PTR(c->leds[0]);
	return 0;
}

int transient_name_in_use(struct manager *m, const char *name, char **ret_reason)
{
	_cleanup_free_ char *path = NULL;
	struct led *l = manager_find_led(m, name);
	const char *at;

	if (l)
		return error_setf(
		    ret_reason, -EEXIST, "LED '%s' exists already (%s); pick another name%s.", name,
		    transient_is(m, l) ? "a transient one" : "configured",
		    transient_is(m, l) ? " or remove it first (uledsctl remove)" : "");
	/* A configured name whose definition has errors. One added to a file since the last
	 * reload is not read here (a CreateLED is no reason to read every file): that reload
	 * reports the name held by the transient LED. */
	at = conf_defined_at(m->defined, name);
	if (at)
		return error_setf(ret_reason, -EEXIST,
				  "'%s' is configured at %s; pick another name.", name, at);
	if (asprintf(&path, "%s/%s", m->led_ctx.sysfs_leds, name) < 0)
		return -ENOMEM;
	if (access(path, F_OK) == 0)
		return error_setf(ret_reason, -EEXIST,
				  "The kernel has an LED named '%s' already (%s, from another "
				  "driver); pick another name.",
				  name, path);
	return 0;
}

/* ---- the files of kept LEDs ---- */

#define KEEP_FILE_UID_LINE "# uid %u"

static char *keep_dir(void)
{
	const char *rt = getenv("RUNTIME_DIRECTORY");
	char *s = NULL;

	/* RuntimeDirectory= may list several, colon-separated: the first is ours. */
	if (rt && *rt)
		return asprintf(&s, "%.*s/transient", (int)strcspn(rt, ":"), rt) < 0 ? NULL : s;
	return strdup("/run/uledsd/transient");
}

static int keep_file_write(const char *name, char **pairs, uid_t uid, char **ret_path)
{
	_cleanup_free_ char *dir = keep_dir(), *esc = NULL, *path = NULL, *text = NULL;
	_cleanup_(fclosep) FILE *f = NULL;
	size_t len;
	int r;

	if (!dir || led_name_escape(name, &esc) < 0 || asprintf(&path, "%s/%s", dir, esc) < 0)
		return -ENOMEM;
	r = section_text(name, pairs, &text, &len);
	if (r < 0)
		return r;
	/* The runtime directory is systemd's (RuntimeDirectory=), or made here without it. */
	*strrchr(dir, '/') = 0;
	(void)mkdir(dir, 0755);
	dir[strlen(dir)] = '/';
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	f = fopen(path, "we");
	/* The creator, for the quotas after a crash restart: a comment to the parser. */
	if (!f || fprintf(f, KEEP_FILE_UID_LINE "\n", (unsigned)uid) < 0 ||
	    fwrite(text, 1, len, f) != len || fflush(f) != 0)
		return -errno;
	*ret_path = TAKE_PTR(path);
	return 0;
}

/* ---- the set ---- */

static int on_gc(sd_event_source *s _unused_, void *userdata)
{
	struct manager *m = userdata;
	struct transients *t = m->transient;

	for (size_t i = t->n; i-- > 0;)
		if (t->v[i].track && sd_bus_track_count(t->v[i].track) == 0) {
			log_info(
			    "%s: its creator closed its connection; removing the transient LED.",
			    t->v[i].led->name);
			(void)transient_remove(m, t->v[i].led);
		}
	return 0;
}

static int on_track_empty(sd_bus_track *track _unused_, void *userdata)
{
	struct manager *m = userdata;
	struct transients *t = m->transient;

	/* Not here: sd-bus is in the middle of dispatching. */
	return t && t->gc ? sd_event_source_set_enabled(t->gc, SD_EVENT_ONESHOT) : 0;
}

static int track_creator(struct manager *m, sd_bus_message *creator, sd_bus_track **ret)
{
	struct transients *t = m->transient;
	int r;

	if (!t->gc) {
		r = sd_event_add_defer(m->event, &t->gc, on_gc, m);
		if (r < 0)
			return r;
		(void)sd_event_source_set_description(t->gc, "transient-gc");
		(void)sd_event_source_set_enabled(t->gc, SD_EVENT_OFF);
	}
	r = sd_bus_track_new(sd_bus_message_get_bus(creator), ret, on_track_empty, m);
	if (r >= 0)
		r = sd_bus_track_add_sender(*ret, creator);
	if (r < 0)
		*ret = sd_bus_track_unref(*ret);
	return r;
}

static int transients_append(struct manager *m, struct led *l, uid_t uid, sd_bus_track *track,
			     char *keep_file)
{
	struct transients *t = transients(m);
	struct transient_led *nv;
	struct led **nl;

	nl = realloc(m->leds, (m->n_leds + 1) * sizeof(*nl));
	if (nl)
		m->leds = nl;
	nv = t ? realloc(t->v, (t->n + 1) * sizeof(*nv)) : NULL;
	if (!nl || !nv)
		return -ENOMEM;
	t->v = nv;
	t->v[t->n++] =
	    (struct transient_led){.led = l, .uid = uid, .track = track, .keep_file = keep_file};
	l->transient = true;
	m->leds[m->n_leds++] = l;
	return 0;
}

/* The quotas of [uledsd] for a caller who is not root: -EUSERS with the message. */
static int quota_check(struct manager *m, uid_t uid, char **ret_error)
{
	struct transients *t = m->transient;
	unsigned mine = 0, all = 0;

	if (uid == 0)
		return 0;
	for (size_t i = 0; t && i < t->n; i++)
		if (t->v[i].uid != 0) {
			all++;
			mine += t->v[i].uid == uid;
		}
	if (mine >= m->policy.transient_max_per_user)
		return error_setf(ret_error, -EUSERS,
				  "User %u has %u transient LEDs already (transient_max_per_user "
				  "= %u in [%s] of uledsd.conf(5)); remove one first "
				  "(uledsctl remove).",
				  (unsigned)uid, mine, m->policy.transient_max_per_user,
				  POLICY_SECTION);
	if (all >= m->policy.transient_max)
		return error_setf(
		    ret_error, -EUSERS,
		    "Users other than root have %u transient LEDs already "
		    "(transient_max = %u in [%s] of uledsd.conf(5)); remove one first.",
		    all, m->policy.transient_max, POLICY_SECTION);
	return 0;
}

int transient_add(struct manager *m, struct led_conf *lc, char **pairs, sd_bus_message *creator,
		  uid_t uid, struct led **ret, char **ret_error)
{
	_cleanup_(sd_bus_track_unrefp) sd_bus_track *track = NULL;
	_cleanup_(led_conf_freep) struct led_conf *owned = lc;
	_cleanup_free_ char *keep_file = NULL, *err = NULL;
	struct led *l;
	int r;

	*ret_error = NULL;
	r = transient_name_in_use(m, lc->name, ret_error);
	if (r >= 0)
		r = quota_check(m, uid, ret_error);
	if (r < 0)
		return r;
	r = transients(m) ? 0 : -ENOMEM;
	if (r >= 0 && creator)
		r = track_creator(m, creator, &track);
	else if (r >= 0)
		r = keep_file_write(lc->name, pairs, uid, &keep_file);
	if (r < 0)
		return error_setf(ret_error, r, "Failed to set up the transient LED: %s.",
				  strerror(-r));
	r = led_new(&m->led_ctx, TAKE_PTR(owned), -1, &l, &err);
	if (r < 0) {
		if (keep_file)
			(void)unlink(keep_file);
		*ret_error = err ? key_error(pairs, err) : NULL;
		return r;
	}
	r = transients_append(m, l, uid, track, keep_file);
	if (r < 0) {
		led_free(l);
		return r;
	}
	led_context_flush(&m->led_ctx);
	TAKE_PTR(track);
	TAKE_PTR(keep_file);
	log_info("%s: transient LED created%s.", l->name,
		 creator ? ", until its creator's connection closes" : ", kept");
	*ret = l;
	return 0;
}

static void transient_entry_drop(struct transients *t, size_t i, bool forget)
{
	if (t->v[i].keep_file && forget)
		(void)unlink(t->v[i].keep_file);
	free(t->v[i].keep_file);
	sd_bus_track_unref(t->v[i].track);
	memmove(t->v + i, t->v + i + 1, (t->n - i - 1) * sizeof(*t->v));
	t->n--;
}

int transient_remove(struct manager *m, struct led *l)
{
	struct transients *t = m->transient;
	struct transient_led *e = transient_find(m, l);

	if (!e)
		return -ENOENT;
	transient_entry_drop(t, (size_t)(e - t->v), true);
	/* Its saved brightness (default_brightness = restore) goes with it: names come and go,
	 * files in the state directory must not pile up. */
	led_state_forget(l, m->state_dir);
	for (size_t i = 0; i < m->n_leds; i++)
		if (m->leds[i] == l) {
			manager_remove_led(m, i, true);
			break;
		}
	return 0;
}

void transient_bus_lost(struct manager *m)
{
	struct transients *t = m->transient;

	for (size_t i = t ? t->n : 0; i-- > 0;)
		if (t->v[i].track) {
			log_info(
			    "%s: the bus went away with its creator; removing the transient LED.",
			    t->v[i].led->name);
			(void)transient_remove(m, t->v[i].led);
		}
}

void transient_free_all(struct manager *m)
{
	struct transients *t = m->transient;

	if (!t)
		return;
	while (t->n > 0)
		transient_entry_drop(t, t->n - 1, true);
	sd_event_source_disable_unref(t->gc);
	free(t->v);
	free(t);
	m->transient = NULL;
}

/* ---- a crash restart ---- */

static void restore_one(struct manager *m, const char *path)
{
	_cleanup_(conf_freep) struct conf *c = NULL;
	_cleanup_free_ char *err = NULL, *keep_file = strdup(path), *name = NULL;
	struct led_conf *lc;
	unsigned uid = 0;
	struct led *l;
	_cleanup_(fclosep) FILE *f = NULL;
	int fd;

	f = fopen(path, "re");
	if (f && fscanf(f, KEEP_FILE_UID_LINE, &uid) != 1)
		uid = 0; /* a file of an older uledsd: root's */
	if (!keep_file || conf_new(&c) < 0 || conf_parse_file(c, path) < 0 || c->n_leds != 1) {
		log_warning("%s: not a transient LED's file; removing it.", path);
		(void)unlink(path);
		return;
	}
	lc = c->leds[0];
	name = strdup(lc->name);
	if (!name)
		return;
	if (manager_find_led(m, lc->name)) {
		log_info("%s: configured now; the configured LED replaces the transient one.",
			 lc->name);
		(void)unlink(path);
		return;
	}
	fd = fdstore_take(m->fdstore, lc->name);
	if (fd < 0) { /* not in the fd store: uledsd was stopped, the LED went with it */
		(void)unlink(path);
		return;
	}
	if (led_new(&m->led_ctx, TAKE_PTR(c->leds[0]), fd, &l, &err) < 0) {
		log_error("%s", err ? err : "Failed to adopt a transient LED.");
		fdstore_forget(m->fdstore, name, -1);
		(void)unlink(path);
		return;
	}
	if (transients_append(m, l, (uid_t)uid, NULL, keep_file) < 0) {
		led_free(l);
		return;
	}
	TAKE_PTR(keep_file);
	log_info("%s: transient LED adopted from the fd store (kept).", l->name);
}

void transient_restore(struct manager *m)
{
	_cleanup_free_ char *dir = keep_dir();
	_cleanup_(closedirp) DIR *d = NULL;
	struct dirent *de;

	d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	while ((de = readdir(d))) {
		_cleanup_free_ char *path = NULL;

		if (de->d_name[0] == '.' || asprintf(&path, "%s/%s", dir, de->d_name) < 0)
			continue;
		restore_one(m, path);
	}
}
