// SPDX-License-Identifier: MIT
/* A uleds group (kmod/README, "Groups"): one fd of uledsd's kmod that reads the records of
 * every member LED, tagged with the id we gave it, many in one read(), and that holds the
 * LEDs alive while it is open: systemd's fd store keeps this one fd instead of one per LED.
 *
 * An id is (generation << LED_GROUP_SLOT_BITS) | slot: the slot indexes the table of
 * members, the generation tells a record of a member that left (still in the ring) from the
 * next one in its slot. Ids found in an adopted group keep their slots; those slots are never
 * given out again (a member nobody claims is removed, but its records may wait in the ring). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "led-group.h"
#include "log.h"
#include "macro.h"
#include "uleds-ext.h"

#define LED_GROUP_SLOT_BITS 20
#define LED_GROUP_SLOTS_MAX (1u << LED_GROUP_SLOT_BITS)
#define LED_GROUP_GEN_MAX (1u << (32 - LED_GROUP_SLOT_BITS))
/* Records the kernel keeps for all members: 1.25 MiB of kernel memory, not ours. */
#define LED_GROUP_RING 16384

struct led_group_slot {
	struct led_watch_member *mb; /* NULL: free */
	uint16_t gen;		     /* the last generation given out here */
	bool reserved;		     /* held by an adopted member, claimed or not */
};

struct led_group {
	int fd;
	sd_event_source *source;
	struct led_group_slot *slots;
	uint32_t n_slots, next_free; /* slots below next_free have been in use */
	uint32_t *free_list;	     /* slots given back, to reuse */
	uint32_t n_free;
	struct uleds_event batch[LED_WATCH_BATCH];
};

static inline uint32_t slot_of(uint32_t id)
{
	return id & (LED_GROUP_SLOTS_MAX - 1);
}

static inline uint16_t gen_of(uint32_t id)
{
	return (uint16_t)(id >> LED_GROUP_SLOT_BITS);
}

/* Level-triggered: a batch that fills the buffer leaves the rest for the next iteration,
 * after the bus and timers were served. A record of no member (one that left) is dropped. */
static int on_group(sd_event_source *s _unused_, int fd, uint32_t revents _unused_, void *userdata)
{
	struct led_group *g = userdata;
	ssize_t n = read(fd, g->batch, sizeof(g->batch));

	if (n < 0)
		return errno == EAGAIN || errno == EINTR
			   ? 0
			   : log_error_errno(errno, "Reading the uleds group failed: %m");
	for (size_t i = 0; i < (size_t)n / sizeof(g->batch[0]); i++) {
		const struct uleds_event *ev = &g->batch[i];
		uint32_t slot = slot_of(ev->id);
		struct led_watch_member *mb = slot < g->n_slots ? g->slots[slot].mb : NULL;

		/* Looked up per record: an earlier record's dispatch may remove an LED. */
		if (mb && mb->group_id == ev->id && ev->type != ULEDS_EVENT_REMOVED)
			mb->record(mb, ev);
	}
	return 0;
}

static int grow(struct led_group *g, uint32_t want)
{
	uint32_t n = g->n_slots ? g->n_slots : 64;
	void *p;

	if (want > LED_GROUP_SLOTS_MAX)
		return -E2BIG;
	while (n < want)
		n = n * 2 > LED_GROUP_SLOTS_MAX ? LED_GROUP_SLOTS_MAX : n * 2;
	if (n <= g->n_slots)
		return 0;
	if (!(p = realloc(g->slots, n * sizeof(*g->slots))))
		return -ENOMEM;
	g->slots = p;
	if (!(p = realloc(g->free_list, n * sizeof(*g->free_list))))
		return -ENOMEM;
	g->free_list = p;
	memset(g->slots + g->n_slots, 0, (n - g->n_slots) * sizeof(*g->slots));
	g->n_slots = n;
	return 0;
}

static int group_new(sd_event *e, int fd, struct led_group **ret)
{
	struct led_group *g = calloc(1, sizeof(*g));
	int r;

	if (!g)
		return -ENOMEM;
	g->fd = fd;
	r = sd_event_add_io(e, &g->source, fd, EPOLLIN, on_group, g);
	if (r < 0) {
		free(g);
		return r;
	}
	(void)sd_event_source_set_description(g->source, "led-group");
	*ret = g;
	return 0;
}

int led_group_open(sd_event *e, const char *uleds_path, struct led_group **ret)
{
	struct uleds_event_mode mode = {.ring_size = LED_GROUP_RING};
	_cleanup_close_ int fd = open(uleds_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	int r;

	if (fd < 0)
		return -errno;
	r = ioctl(fd, ULEDS_IOC_GROUP_CREATE, &mode);
	if (r < 0)
		return -errno; /* ENOTTY: the in-tree uleds, or a kmod from before groups */
	if (r != (int)sizeof(struct uleds_event))
		return -EPROTO; /* a record layout we do not know */
	r = group_new(e, fd, ret);
	if (r >= 0)
		fd = -1;
	return r;
}

int led_group_adopt(sd_event *e, int fd, int (*member)(int fd, void *userdata), void *userdata,
		    struct led_group **ret)
{
	struct uleds_group_member m = {0};
	struct led_group *g;
	size_t n = 0;
	int r;

	r = group_new(e, fd, &g);
	if (r < 0) {
		safe_close(fd);
		return r;
	}
	for (; ioctl(fd, ULEDS_IOC_GROUP_GET, &m) == 0; m.id++, n++) {
		uint32_t slot = slot_of(m.id);

		if (grow(g, slot + 1) < 0) {
			safe_close(m.fd);
			continue; /* held by the group still: closed with it when uledsd exits */
		}
		g->slots[slot].reserved = true;
		g->slots[slot].gen = gen_of(m.id);
		if (slot >= g->next_free)
			g->next_free = slot + 1;
		(void)member(m.fd, userdata);
		if (m.id == UINT32_MAX)
			break;
	}
	if (errno != ENOENT && errno != 0)
		log_warning_errno(errno, "Reading the members of the stored uleds group: %m");
	log_debug("uleds group: %zu member%s kept.", n, n == 1 ? "" : "s");
	*ret = g;
	return 0;
}

static void give_back(struct led_group *g, uint32_t slot)
{
	if (g->n_free < g->n_slots)
		g->free_list[g->n_free++] = slot;
}

/* A slot for a new member: one given back, else a new one; never a reserved one. */
static int slot_new(struct led_group *g, uint32_t *ret)
{
	while (g->n_free > 0) {
		uint32_t s = g->free_list[--g->n_free];

		if (!g->slots[s].mb && !g->slots[s].reserved) {
			*ret = s;
			return 0;
		}
	}
	while (g->next_free < LED_GROUP_SLOTS_MAX) {
		uint32_t s = g->next_free++;
		int r = grow(g, s + 1);

		if (r < 0)
			return r;
		if (!g->slots[s].reserved) {
			*ret = s;
			return 0;
		}
	}
	return -E2BIG;
}

static int join(struct led_group *g, struct led_watch_member *mb, uint32_t *ret_slot)
{
	struct uleds_group_member m = {.fd = mb->fd};
	uint32_t slot;
	uint16_t gen;
	int r;

	r = slot_new(g, &slot);
	if (r < 0)
		return r;
	gen =
	    (uint16_t)(g->slots[slot].gen + 1u < LED_GROUP_GEN_MAX ? g->slots[slot].gen + 1u : 1u);
	m.id = ((uint32_t)gen << LED_GROUP_SLOT_BITS) | slot;
	if (ioctl(g->fd, ULEDS_IOC_GROUP_ADD, &m) == 0) {
		g->slots[slot].gen = gen;
		*ret_slot = slot;
		mb->group_id = m.id;
		return 0;
	}
	r = -errno;
	give_back(g, slot); /* not taken */
	if (r != -EALREADY)
		return r;
	/* An adopted LED: a member already, under the id the kernel just told. */
	slot = slot_of(m.id);
	if (slot >= g->n_slots || g->slots[slot].mb)
		return -EUCLEAN;
	*ret_slot = slot;
	mb->group_id = m.id;
	return 0;
}

int led_group_add(struct led_group *g, struct led_watch_member *mb)
{
	uint32_t slot = 0;
	int r = join(g, mb, &slot);

	if (r < 0)
		return r;
	g->slots[slot].mb = mb;
	return 0;
}

void led_group_remove(struct led_group *g, struct led_watch_member *mb)
{
	struct uleds_group_member m = {.id = mb->group_id};
	uint32_t slot = slot_of(mb->group_id);

	if (!mb->group_id)
		return;
	/* ENOENT: it left already (a DEV_REMOVE on its fd leaves the group). The LED goes with
	 * its fd now, unless someone else holds a copy. */
	if (ioctl(g->fd, ULEDS_IOC_GROUP_LEAVE, &m) < 0 && errno != ENOENT)
		log_debug_errno(errno, "GROUP_LEAVE of id %u: %m", mb->group_id);
	if (slot < g->n_slots && g->slots[slot].mb == mb) {
		g->slots[slot].mb = NULL;
		if (!g->slots[slot].reserved)
			give_back(g, slot);
	}
	mb->group_id = 0;
}

int led_group_fd(const struct led_group *g)
{
	return g ? g->fd : -1;
}

struct led_group *led_group_free(struct led_group *g)
{
	if (!g)
		return NULL;
	sd_event_source_disable_unref(g->source);
	safe_close(g->fd);
	free(g->slots);
	free(g->free_list);
	free(g);
	return NULL;
}
