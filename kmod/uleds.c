// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * uleds - user space LEDs: the ABI of <linux/uleds.h>, for kernels built
 * without CONFIG_LEDS_USER, plus the setup and default-trigger ioctls of
 * uleds-ext.h.
 *
 * Each open file of /dev/uleds may register one LED class device; the LED
 * lives until the file is released. The LED core calls us with every new
 * brightness (already clamped to max_brightness); we keep the latest value
 * and hand it to read().
 */
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/led-class-multicolor.h>
#include <linux/timekeeping.h>
#include <linux/leds.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "uleds-ext.h"

/*
 * The LED core refuses a clashing name by itself when it knows
 * LED_REJECT_NAME_CONFLICT (6.12 does, 6.1 does not); without it the core
 * renames the newcomer to NAME_1 and we have to look first. Testing the flag
 * rather than the version also covers backports.
 */
#ifndef LED_REJECT_NAME_CONFLICT
#define ULEDS_CHECK_NAMES 1
#include "uleds-compat.h"
#endif

#define ULEDS_NAME "uleds"

/*
 * Records kept in a fixed array, oldest at ev[tail]; ev is NULL for an LED in
 * latest-value mode. pending_lost: dropped when nothing was left to carry the
 * count, for the next record.
 */
struct uleds_ring {
	struct uleds_event *ev;
	u32 size, tail, count;
	u32 pending_lost;
};

/*
 * A group (ULEDS_IOC_GROUP_CREATE): the records of its members in one ring,
 * tagged with their ids; it holds a reference to each member's file.
 */
struct uleds_group {
	/* the group's file, and a DEV_REMOVE of a member in flight */
	struct kref ref;
	/* members, and each member's group_file */
	struct mutex lock;
	struct xarray members;		/* id -> struct uleds_device */
	/* one reader at a time copies through bounce */
	struct mutex read_lock;
	struct uleds_event *bounce;
	/* nests inside a member's value_lock */
	spinlock_t ring_lock;
	struct uleds_ring ring;
	wait_queue_head_t waitq;
};

#define ULEDS_GROUP_RING_DEFAULT	4096
#define ULEDS_GROUP_RING_MAX		262144
#define ULEDS_GROUP_BATCH		64

struct uleds_device {
	/* mc.led_cdev is the LED; mc.num_colors > 0 makes it multicolour */
	struct led_classdev_mc mc;
	struct mc_subled subled[ULEDS_MAX_CHANNELS];
	/* the reference to led-class-multicolor taken for a multicolour LED */
	typeof(&led_classdev_multicolor_register_ext) mc_register;
	char name[LED_MAX_NAME_SIZE];
	/* default trigger; cdev.default_trigger points here when set */
	char trigger[LED_MAX_NAME_SIZE];
	/* on uleds_claims from before registration until after removal */
	struct list_head claim;
	/* serializes setup and trigger changes */
	struct mutex lock;
	/* a default trigger not registered at the last lookup, and when */
	char missing[LED_MAX_NAME_SIZE];
	unsigned long missing_at;
	/* protects the fields below: brightness_set() may run in atomic context */
	spinlock_t value_lock;
	bool registered;
	/* ULEDS_IOC_DEV_REMOVE done: POLLHUP, no new setup */
	bool removed;
	bool changed;
	int brightness;
	/* latest-value mode: the channel intensities last reported */
	u32 intensity[ULEDS_MAX_CHANNELS];
	/* event mode when ring.ev is set */
	struct uleds_ring ring;
	u64 seq;
	/*
	 * The group this LED is a member of, and its id there: written under
	 * the group's lock and value_lock, read under either. group_file is
	 * the group's reference to our file (the group's lock).
	 */
	struct uleds_group *group;
	u32 group_id;
	struct file *group_file;
	/* this fd is a group, not an LED (ULEDS_IOC_GROUP_CREATE) */
	struct uleds_group *as_group;
	/* ULEDS_EVENT_F_BLINK asked for, applied at setup */
	bool blink_offload;
	wait_queue_head_t waitq;
};

#define ULEDS_RING_DEFAULT	1024
#define ULEDS_RING_MAX		65536

static struct miscdevice uleds_misc;

/*
 * The names our LEDs hold, from before led_classdev_register() until after
 * led_classdev_unregister() returned. Two uleds LEDs never race for a name:
 * the second setup finds the claim and gets EEXIST at once. Only list
 * operations happen under the spinlock, never a call into the LED core, so
 * one LED stuck in the core (see "Known LED core window" in README) cannot
 * block the setup or release of any other.
 */
static DEFINE_SPINLOCK(uleds_claims_lock);
static LIST_HEAD(uleds_claims);

static bool uleds_claim(struct uleds_device *udev)
{
	struct uleds_device *other;
	bool ok = true;

	spin_lock(&uleds_claims_lock);
	list_for_each_entry(other, &uleds_claims, claim) {
		if (!strcmp(other->name, udev->name)) {
			ok = false;
			break;
		}
	}
	if (ok)
		list_add_tail(&udev->claim, &uleds_claims);
	spin_unlock(&uleds_claims_lock);

	return ok;
}

static void uleds_unclaim(struct uleds_device *udev)
{
	spin_lock(&uleds_claims_lock);
	list_del_init(&udev->claim);
	spin_unlock(&uleds_claims_lock);
}

static struct uleds_device *to_uleds(struct led_classdev *cdev)
{
	return container_of(cdev, struct uleds_device, mc.led_cdev);
}

/*
 * The channel intensities of a multicolour LED, each clamped to
 * max_brightness: the class parses multi_intensity with %i and stores any
 * int. Returns the number of channels (0 for a plain LED).
 */
static u16 uleds_intensities(struct uleds_device *udev,
			     u32 out[ULEDS_MAX_CHANNELS])
{
	u32 max = udev->mc.led_cdev.max_brightness;
	u16 i, n = udev->mc.num_colors;

	for (i = 0; i < n; i++)
		out[i] = min_t(u32, READ_ONCE(udev->subled[i].intensity), max);
	return n;
}

/*
 * A slot for a new record, the oldest dropped when the ring is full: the
 * count of what was dropped moves to the oldest record kept, so the reader
 * learns of the gap right where it is. Caller holds the ring's lock.
 */
static struct uleds_event *uleds_ring_add(struct uleds_ring *r)
{
	struct uleds_event *ev;
	u32 carry;

	if (r->count == r->size) {
		carry = r->ev[r->tail].lost + 1;
		r->tail = (r->tail + 1) % r->size;
		r->count--;
		if (r->count)
			r->ev[r->tail].lost += carry;
		else
			r->pending_lost += carry;
	}
	ev = &r->ev[(r->tail + r->count) % r->size];
	memset(ev, 0, sizeof(*ev));
	ev->lost = r->pending_lost;
	r->pending_lost = 0;
	r->count++;
	return ev;
}

/* Takes up to max records off the ring, oldest first. Caller holds its lock. */
static u32 uleds_ring_take(struct uleds_ring *r, struct uleds_event *out, u32 max)
{
	u32 n = 0;

	while (n < max && r->count) {
		out[n++] = r->ev[r->tail];
		r->tail = (r->tail + 1) % r->size;
		r->count--;
	}
	return n;
}

static void uleds_group_wake(struct uleds_group *g)
{
	wake_up_interruptible_poll(&g->waitq, EPOLLIN | EPOLLRDNORM);
}

/*
 * Records a call of the LED core: in the LED's own ring, or in its group's.
 * A group is woken only when its ring goes from empty to not empty: a reader
 * sleeps only on an empty ring, and a level-triggered poll sees the rest. The
 * group stays alive while we hold value_lock (it leaves its members under it).
 * Caller holds value_lock; runs in atomic context (brightness_set() and
 * blink_set() may be called there). Returns whether the LED's own waiters
 * have news.
 */
static bool uleds_push(struct uleds_device *udev, u16 type, int brightness,
		       unsigned long delay_on, unsigned long delay_off)
{
	struct uleds_group *g = udev->group;
	struct uleds_event *ev;
	bool was_empty = false;

	if (g) {
		spin_lock(&g->ring_lock);
		was_empty = !g->ring.count;
		ev = uleds_ring_add(&g->ring);
		ev->id = udev->group_id;
	} else {
		ev = uleds_ring_add(&udev->ring);
	}
	ev->timestamp_ns = ktime_get_ns();
	ev->boottime_ns = ktime_get_boottime_ns();
	ev->seq = ++udev->seq;
	ev->type = type;
	ev->brightness = brightness;
	ev->delay_on_ms = min_t(unsigned long, delay_on, U32_MAX);
	ev->delay_off_ms = min_t(unsigned long, delay_off, U32_MAX);
	ev->n_channels = uleds_intensities(udev, ev->intensity);
	if (!g)
		return true;
	spin_unlock(&g->ring_lock);
	if (was_empty)
		uleds_group_wake(g);
	return false;
}

static void uleds_wake(struct uleds_device *udev)
{
	/*
	 * With the mask, epoll wakes only waiters that asked for input, not
	 * every process polling the fd (systemd watches stored fds for HUP).
	 */
	wake_up_interruptible_poll(&udev->waitq, EPOLLIN | EPOLLRDNORM);
}

/*
 * Latest-value mode keeps the newest brightness and reports a change only
 * when it differs. A write of multi_intensity calls us again with the same
 * brightness: there a change of any channel is a change. Event mode records
 * every call, an equal value too: a trigger that sets the same brightness
 * twice did call twice.
 */
static void uleds_brightness_set(struct led_classdev *cdev,
				 enum led_brightness value)
{
	struct uleds_device *udev = to_uleds(cdev);
	u32 intensity[ULEDS_MAX_CHANNELS];
	unsigned long flags;
	bool wake = true;
	u16 n;

	spin_lock_irqsave(&udev->value_lock, flags);
	if (udev->ring.ev || udev->group) {
		wake = uleds_push(udev, ULEDS_EVENT_BRIGHTNESS, value, 0, 0);
		/* a latest-value fd reads it after leaving its group */
		if (!udev->ring.ev) {
			udev->brightness = value;
			uleds_intensities(udev, udev->intensity);
		}
	} else {
		n = uleds_intensities(udev, intensity);
		if (udev->brightness != value ||
		    memcmp(udev->intensity, intensity, n * sizeof(u32))) {
			udev->brightness = value;
			memcpy(udev->intensity, intensity, n * sizeof(u32));
			udev->changed = true;
		} else {
			wake = false;
		}
	}
	spin_unlock_irqrestore(&udev->value_lock, flags);

	if (wake)
		uleds_wake(udev);
}

/*
 * Blink offload (ULEDS_EVENT_F_BLINK): the LED "blinks in hardware", so the
 * core hands over the delays instead of toggling through brightness_set()
 * every few milliseconds. The core's rules: delays of 0/0 ask the driver to
 * pick its own and write them back; a new call comes with every change of
 * delay_on/delay_off; brightness 0 ends the blinking (a BRIGHTNESS record).
 */
static int uleds_blink_set(struct led_classdev *cdev, unsigned long *delay_on,
			   unsigned long *delay_off)
{
	struct uleds_device *udev = to_uleds(cdev);
	unsigned long flags;
	bool wake;
	int level;

	if (!*delay_on && !*delay_off) {
		*delay_on = 500;
		*delay_off = 500;
	}
	level = cdev->brightness ? cdev->brightness : cdev->max_brightness;

	spin_lock_irqsave(&udev->value_lock, flags);
	wake = uleds_push(udev, ULEDS_EVENT_BLINK, level, *delay_on, *delay_off);
	spin_unlock_irqrestore(&udev->value_lock, flags);

	if (wake)
		uleds_wake(udev);
	return 0;
}

/* Mainline's rules, plus: the name must end within the 64 bytes. */
static bool uleds_name_valid(const char *name)
{
	size_t len = strnlen(name, LED_MAX_NAME_SIZE);

	if (len == 0 || len == LED_MAX_NAME_SIZE)
		return false;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	return !strchr(name, '/');
}

/*
 * led_trigger_register() takes any name, and real ones contain ':' and '.'
 * (power-supply triggers are named after the supply, hid-MAC-battery-...).
 * So: anything NUL-terminated within the 64 bytes, but not empty and not
 * "default", which names "the LED's default trigger" to sysfs in newer cores.
 */
static bool uleds_trigger_name_valid(const char *name)
{
	size_t len = strnlen(name, LED_MAX_NAME_SIZE);

	if (len == 0 || len == LED_MAX_NAME_SIZE)
		return false;
	return strcmp(name, "default") != 0;
}

/*
 * Makes the removal final before led_classdev_unregister(), which drops the
 * trigger under trigger_lock and then, with the lock released, removes the
 * device and takes the LED off leds_list. Two LED-core paths can attach a
 * trigger in between, and the LED would then be freed while still on the
 * trigger's led_cdevs list (list_add corruption, use-after-free):
 *  - led_trigger_write(), a write to the trigger file, which takes
 *    led_access and gives up when sysfs is disabled: we disable it under
 *    led_access, after any write in progress has finished;
 *  - led_trigger_register(), a trigger module loading, which attaches
 *    itself to every LED on leds_list whose default_trigger names it and
 *    that has no trigger: we clear default_trigger under trigger_lock,
 *    the lock it holds for that test.
 * The flags word is also written by led_trigger_set() under trigger_lock
 * (LED_INIT_DEFAULT_TRIGGER), so LED_SYSFS_DISABLE is set under both locks.
 */
static void uleds_remove(struct uleds_device *udev)
{
	struct led_classdev *cdev = &udev->mc.led_cdev;

	mutex_lock(&cdev->led_access);
#ifdef CONFIG_LEDS_TRIGGERS
	down_write(&cdev->trigger_lock);
#endif
	led_sysfs_disable(cdev);
#ifdef CONFIG_LEDS_TRIGGERS
	cdev->default_trigger = NULL;
	led_trigger_set(cdev, NULL);
	up_write(&cdev->trigger_lock);
#endif
	mutex_unlock(&cdev->led_access);

	led_classdev_unregister(cdev);
}

static int uleds_classdev_register(struct uleds_device *udev)
{
	struct device *parent = uleds_misc.this_device;

	/* mc_register is set whenever num_colors is (uleds_set_multicolor()) */
	if (udev->mc.num_colors)
		return udev->mc_register(parent, &udev->mc, NULL);
	return led_classdev_register(parent, &udev->mc.led_cdev);
}

#ifdef ULEDS_CHECK_NAMES
/*
 * The LED class, learnt from the first LED we register: the class is not
 * exported, and our own LEDs are the only ones whose device we may touch
 * without racing with their unregistration. Typed after struct device,
 * whose class pointer became const in 6.4. Always the same value once set.
 */
static typeof_member(struct device, class) uleds_leds_class;

static bool uleds_name_taken(const char *name)
{
	typeof(uleds_leds_class) class = READ_ONCE(uleds_leds_class);
	struct led_classdev *cdev;
	struct device *dev;
	bool taken = false;

	if (class) {
		dev = class_find_device_by_name(class, name);
		if (!dev)
			return false;
		put_device(dev);
		return true;
	}

	/*
	 * No class yet: compare the names drivers registered with. Catches
	 * every LED registered without init_data; LEDs whose name the core
	 * composed are caught after the fact in uleds_core_register().
	 */
	down_read(&leds_list_lock);
	list_for_each_entry(cdev, &leds_list, node) {
		if (cdev->name && !strcmp(cdev->name, name)) {
			taken = true;
			break;
		}
	}
	up_read(&leds_list_lock);

	return taken;
}

static int uleds_core_register(struct uleds_device *udev)
{
	int ret;

	if (uleds_name_taken(udev->name))
		return -EEXIST;

	ret = uleds_classdev_register(udev);
	if (ret)
		return ret;
	WRITE_ONCE(uleds_leds_class, udev->mc.led_cdev.dev->class);

	/*
	 * Lost a race with a driver outside uleds, or missed a composed
	 * name: the core renamed our LED. Take it back at once.
	 */
	if (strcmp(dev_name(udev->mc.led_cdev.dev), udev->name)) {
		uleds_remove(udev);
		return -EEXIST;
	}
	return 0;
}
#else
static int uleds_core_register(struct uleds_device *udev)
{
	udev->mc.led_cdev.flags |= LED_REJECT_NAME_CONFLICT;
	return uleds_classdev_register(udev);
}
#endif

static int uleds_register(struct uleds_device *udev)
{
	int ret;

	if (!uleds_claim(udev))
		return -EEXIST;

	ret = uleds_core_register(udev);
	/*
	 * On a clash the core first tries NAME_1 (led_classdev_next_name()),
	 * which does not fit in 64 bytes after a name of 62 or 63, and reports
	 * that as ENOMEM before it looks at LED_REJECT_NAME_CONFLICT.
	 */
	if (ret == -ENOMEM && strlen(udev->name) > LED_MAX_NAME_SIZE - 3)
		ret = -EEXIST;
	if (ret)
		uleds_unclaim(udev);
	return ret;
}

static void uleds_unregister(struct uleds_device *udev)
{
	uleds_remove(udev);
	uleds_unclaim(udev);
}

/*
 * Remembers a default trigger the core did not find (see
 * uleds_trigger_recently_missing()).
 */
static void uleds_note_missing_trigger(struct uleds_device *udev)
{
#ifdef CONFIG_LEDS_TRIGGERS
	struct led_classdev *cdev = &udev->mc.led_cdev;

	down_read(&cdev->trigger_lock);
	if (cdev->default_trigger && !cdev->trigger) {
		strscpy(udev->missing, cdev->default_trigger,
			sizeof(udev->missing));
		udev->missing_at = jiffies;
	} else {
		udev->missing[0] = '\0';
	}
	up_read(&cdev->trigger_lock);
#endif
}

static int uleds_setup(struct uleds_device *udev,
		       const struct uleds_user_dev *user_dev)
{
	unsigned int i;
	int ret;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;

	if (udev->registered || udev->removed) {
		ret = udev->removed ? -ENODEV : -EBUSY;
		goto out;
	}
	if (udev->as_group) {
		ret = -EINVAL;
		goto out;
	}
	if (!uleds_name_valid(user_dev->name) || user_dev->max_brightness <= 0) {
		ret = -EINVAL;
		goto out;
	}

	/* A failed attempt may leave core state behind: start clean. */
	memset(&udev->mc.led_cdev, 0, sizeof(udev->mc.led_cdev));
	strscpy(udev->name, user_dev->name, sizeof(udev->name));
	udev->mc.led_cdev.name = udev->name;
	udev->mc.led_cdev.max_brightness = user_dev->max_brightness;
	udev->mc.led_cdev.brightness_set = uleds_brightness_set;
	/* A new multicolour LED starts white: every channel at full. */
	for (i = 0; i < udev->mc.num_colors; i++) {
		udev->subled[i].intensity = user_dev->max_brightness;
		udev->intensity[i] = user_dev->max_brightness;
	}
	if (udev->blink_offload)
		udev->mc.led_cdev.blink_set = uleds_blink_set;
	if (udev->trigger[0])
		udev->mc.led_cdev.default_trigger = udev->trigger;

	ret = uleds_register(udev);
	if (ret)
		goto out;
	uleds_note_missing_trigger(udev);

	/* The first read returns the initial brightness at once. */
	spin_lock_irq(&udev->value_lock);
	udev->registered = true;
	udev->changed = true;
	spin_unlock_irq(&udev->value_lock);
	uleds_wake(udev);
out:
	mutex_unlock(&udev->lock);
	return ret;
}

#ifdef CONFIG_LEDS_TRIGGERS
/*
 * Whether the LED is still waiting, with nothing changed, for a trigger that
 * was not registered when we last looked it up less than 5 s ago. Asking
 * again would only start another modprobe (led_trigger_set_default() calls
 * request_module_nowait() for a name it does not find); the core attaches the
 * trigger by itself when its module registers it. Caller holds trigger_lock.
 */
static bool uleds_trigger_recently_missing(struct uleds_device *udev,
					   const char *name)
{
	return !udev->mc.led_cdev.trigger && udev->missing[0] &&
	       !strcmp(udev->missing, name) &&
	       time_before(jiffies, udev->missing_at + 5 * HZ);
}

/*
 * Replaces the trigger of a registered LED in one step, with led_access held
 * so no write to the trigger file comes in between. The default trigger
 * changes and the old trigger goes under one hold of trigger_lock: a trigger
 * module registering at that moment (led_trigger_register() attaches to LEDs
 * with no trigger and a matching default) sees either the old state with the
 * old trigger attached, or the new default. Otherwise it could re-attach the
 * old default between the removal and the change, and it would survive.
 */
static void uleds_replace_trigger(struct uleds_device *udev, const char *name)
{
	struct led_classdev *cdev = &udev->mc.led_cdev;
	bool lookup;

	lockdep_assert_held(&cdev->led_access);

	down_write(&cdev->trigger_lock);
	lookup = name && !uleds_trigger_recently_missing(udev, name);
	if (name) {
		strscpy(udev->trigger, name, sizeof(udev->trigger));
		cdev->default_trigger = udev->trigger;
	} else {
		cdev->default_trigger = NULL;
	}
	led_trigger_set(cdev, NULL);
	up_write(&cdev->trigger_lock);

	if (!lookup)
		return;
	/* Takes triggers_list_lock, then trigger_lock: not nestable here. */
	led_trigger_set_default(cdev);
	uleds_note_missing_trigger(udev);
}
#endif

static int uleds_set_trigger(struct uleds_device *udev,
			     const struct uleds_trigger *trig)
{
	bool none;
	int ret;

	if (!uleds_trigger_name_valid(trig->name))
		return -EINVAL;
	none = !strcmp(trig->name, "none");

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;

	if (!udev->registered) {
		/* Applied by the core during registration. */
		if (none)
			udev->trigger[0] = '\0';
		else
			strscpy(udev->trigger, trig->name, sizeof(udev->trigger));
		goto out;
	}

#ifdef CONFIG_LEDS_TRIGGERS
	ret = mutex_lock_interruptible(&udev->mc.led_cdev.led_access);
	if (ret)
		goto out;
	uleds_replace_trigger(udev, none ? NULL : trig->name);
	mutex_unlock(&udev->mc.led_cdev.led_access);
#endif
out:
	mutex_unlock(&udev->lock);
	return ret;
}

/*
 * Makes the LED multicolour, before the setup. led-class-multicolor is a
 * module in Debian's kernels; symbol_request() loads it on first use and
 * holds it until the fd is released, so a plain LED never needs it and
 * nothing in the harness or at boot has to load it first.
 */
static int uleds_set_multicolor(struct uleds_device *udev,
				const struct uleds_multicolor *m)
{
	unsigned int i;
	int ret;

	BUILD_BUG_ON(ULEDS_COLOR_MAX != LED_COLOR_ID_MAX);
	if (!m->n_channels || m->n_channels > ULEDS_MAX_CHANNELS)
		return -EINVAL;
	for (i = 0; i < m->n_channels; i++)
		if (m->color[i] >= ULEDS_COLOR_MAX)
			return -EINVAL;
	if (!IS_ENABLED(CONFIG_LEDS_CLASS_MULTICOLOR))
		return -EOPNOTSUPP;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;
	if (udev->registered) {
		ret = -EBUSY;
		goto out;
	}
#if IS_ENABLED(CONFIG_LEDS_CLASS_MULTICOLOR)
	if (!udev->mc_register)
		udev->mc_register =
			symbol_request(led_classdev_multicolor_register_ext);
#endif
	if (!udev->mc_register) {
		ret = -EOPNOTSUPP;
		goto out;
	}
	memset(udev->subled, 0, sizeof(udev->subled));
	for (i = 0; i < m->n_channels; i++) {
		udev->subled[i].color_index = m->color[i];
		udev->subled[i].channel = i;
	}
	udev->mc.subled_info = udev->subled;
	udev->mc.num_colors = m->n_channels;
out:
	mutex_unlock(&udev->lock);
	return ret;
}

/*
 * Groups (kmod/README, "Groups"). Lock order: a member's lock, then the
 * group's lock, then the member's value_lock, then the group's ring_lock.
 * The group takes a member's value_lock only, never its lock, so a member's
 * DEV_REMOVE (which holds its lock) never waits for the group.
 */
static const struct file_operations uleds_fops;

static void uleds_group_free(struct kref *ref)
{
	struct uleds_group *g = container_of(ref, struct uleds_group, ref);

	xa_destroy(&g->members);
	mutex_destroy(&g->lock);
	mutex_destroy(&g->read_lock);
	kvfree(g->ring.ev);
	kfree(g->bounce);
	kfree(g);
}

/*
 * Ends the membership of udev, taken out of the xarray already or next.
 * Caller holds the group's lock. Returns the group's reference to the
 * member's file, for the caller to put after unlocking.
 */
static struct file *uleds_group_detach(struct uleds_device *udev)
{
	struct file *f = udev->group_file;

	spin_lock_irq(&udev->value_lock);
	udev->group = NULL;
	udev->group_id = 0;
	/* latest-value mode: the next read tells the value the group saw */
	udev->changed = udev->registered && !udev->ring.ev;
	spin_unlock_irq(&udev->value_lock);
	udev->group_file = NULL;
	return f;
}

/*
 * What a joining LED has waiting moves to the group: its records, or its
 * unread latest value as a BRIGHTNESS record. Caller holds value_lock.
 */
static void uleds_group_move(struct uleds_group *g, struct uleds_device *udev)
{
	struct uleds_event *ev, old;
	bool wake;

	if (!udev->ring.ev) {
		if (udev->changed) {
			udev->changed = false;
			uleds_push(udev, ULEDS_EVENT_BRIGHTNESS, udev->brightness, 0, 0);
		}
		return;
	}
	spin_lock(&g->ring_lock);
	wake = !g->ring.count;
	while (uleds_ring_take(&udev->ring, &old, 1)) {
		ev = uleds_ring_add(&g->ring);
		old.lost += ev->lost;
		*ev = old;
		ev->id = udev->group_id;
	}
	g->ring.pending_lost += udev->ring.pending_lost;
	udev->ring.pending_lost = 0;
	wake = wake && g->ring.count;
	spin_unlock(&g->ring_lock);
	if (wake)
		uleds_group_wake(g);
}

static int uleds_group_create(struct uleds_device *udev,
			      const struct uleds_event_mode *mode)
{
	u32 size = mode->ring_size ? mode->ring_size : ULEDS_GROUP_RING_DEFAULT;
	struct uleds_group *g;
	int ret;

	if (size > ULEDS_GROUP_RING_MAX || mode->flags)
		return -EINVAL;
	g = kzalloc(sizeof(*g), GFP_KERNEL);
	if (!g)
		return -ENOMEM;
	g->ring.ev = kvcalloc(size, sizeof(*g->ring.ev), GFP_KERNEL);
	g->bounce = kcalloc(ULEDS_GROUP_BATCH, sizeof(*g->bounce), GFP_KERNEL);
	if (!g->ring.ev || !g->bounce) {
		ret = -ENOMEM;
		goto fail;
	}
	g->ring.size = size;
	kref_init(&g->ref);
	mutex_init(&g->lock);
	mutex_init(&g->read_lock);
	xa_init(&g->members);
	spin_lock_init(&g->ring_lock);
	init_waitqueue_head(&g->waitq);

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		goto fail;
	spin_lock_irq(&udev->value_lock);
	/* only a fresh fd: nothing an LED would need to undo */
	if (udev->registered || udev->removed || udev->ring.ev ||
	    udev->trigger[0] || udev->mc.num_colors || udev->group ||
	    udev->as_group)
		ret = -EBUSY;
	else
		WRITE_ONCE(udev->as_group, g);
	spin_unlock_irq(&udev->value_lock);
	mutex_unlock(&udev->lock);
	if (!ret)
		return sizeof(struct uleds_event);
fail:
	kvfree(g->ring.ev);
	kfree(g->bounce);
	kfree(g);
	return ret;
}

static int uleds_group_add(struct uleds_group *g, struct file *gfile,
			   struct uleds_group_member *m)
{
	struct uleds_device *udev;
	struct file *f;
	int ret;

	f = fget(m->fd);
	if (!f)
		return -EBADF;
	if (f->f_op != &uleds_fops || f == gfile) {
		ret = -EINVAL;
		goto put;
	}
	udev = f->private_data;

	mutex_lock(&g->lock);
	ret = xa_insert(&g->members, m->id, udev, GFP_KERNEL);
	if (ret) {
		ret = ret == -EBUSY ? -EEXIST : ret;
		goto unlock;
	}
	spin_lock_irq(&udev->value_lock);
	if (udev->as_group)
		ret = -EINVAL;
	else if (udev->removed)
		ret = -ENODEV;
	else if (udev->group == g)
		ret = -EALREADY;
	else if (udev->group)
		ret = -EBUSY;
	if (!ret) {
		udev->group = g;
		udev->group_id = m->id;
		uleds_group_move(g, udev);
	}
	spin_unlock_irq(&udev->value_lock);
	if (ret) {
		xa_erase(&g->members, m->id);
		/* after the erase: the id of the member, for the caller */
		if (ret == -EALREADY)
			m->id = udev->group_id;
	} else {
		udev->group_file = f;
		f = NULL;
	}
unlock:
	mutex_unlock(&g->lock);
put:
	if (f)
		fput(f);
	return ret;
}

static int uleds_group_leave(struct uleds_group *g, u32 id)
{
	struct uleds_device *udev;
	struct file *f = NULL;

	mutex_lock(&g->lock);
	udev = xa_erase(&g->members, id);
	if (udev)
		f = uleds_group_detach(udev);
	mutex_unlock(&g->lock);
	if (!f)
		return -ENOENT;
	/* the LED's release, if this was its last reference, runs before
	 * the return to user space */
	fput(f);
	return 0;
}

static int uleds_group_get(struct uleds_group *g,
			   struct uleds_group_member __user *uarg)
{
	struct uleds_group_member m;
	struct uleds_device *udev;
	unsigned long index;
	struct file *f = NULL;
	int fd;

	if (copy_from_user(&m, uarg, sizeof(m)))
		return -EFAULT;
	index = m.id;
	mutex_lock(&g->lock);
	udev = xa_find(&g->members, &index, U32_MAX, XA_PRESENT);
	if (udev)
		f = get_file(udev->group_file);
	mutex_unlock(&g->lock);
	if (!f)
		return -ENOENT;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		fput(f);
		return fd;
	}
	m.id = index;
	m.fd = fd;
	if (copy_to_user(uarg, &m, sizeof(m))) {
		put_unused_fd(fd);
		fput(f);
		return -EFAULT;
	}
	fd_install(fd, f);
	return 0;
}

/*
 * A member's DEV_REMOVE: the group lets it go, as GROUP_LEAVE would. The
 * caller holds a reference to the group, taken under the member's
 * value_lock while it was still a member.
 */
static void uleds_group_forget(struct uleds_group *g, struct uleds_device *udev)
{
	struct file *f = NULL;

	mutex_lock(&g->lock);
	if (READ_ONCE(udev->group) == g) {
		xa_erase(&g->members, udev->group_id);
		f = uleds_group_detach(udev);
	}
	mutex_unlock(&g->lock);
	if (f)
		fput(f);
	kref_put(&g->ref, uleds_group_free);
}

/* The group's fd is closed: every member goes back to its own fd. */
static void uleds_group_release(struct uleds_group *g)
{
	struct uleds_device *udev;
	unsigned long index;

	mutex_lock(&g->lock);
	xa_for_each(&g->members, index, udev) {
		xa_erase(&g->members, index);
		fput(uleds_group_detach(udev));
	}
	mutex_unlock(&g->lock);
	kref_put(&g->ref, uleds_group_free);
}

/* As many whole records as fit, oldest first, copied in batches. */
static ssize_t uleds_group_read(struct uleds_group *g, struct file *file,
				char __user *buf, size_t count)
{
	size_t done, want, n;
	ssize_t ret;

	if (count < sizeof(struct uleds_event))
		return -EINVAL;
	for (;;) {
		ret = mutex_lock_interruptible(&g->read_lock);
		if (ret)
			return ret;
		for (done = 0; count - done >= sizeof(struct uleds_event);) {
			want = min_t(size_t, ULEDS_GROUP_BATCH,
				     (count - done) / sizeof(struct uleds_event));
			spin_lock_irq(&g->ring_lock);
			n = uleds_ring_take(&g->ring, g->bounce, want);
			spin_unlock_irq(&g->ring_lock);
			if (!n)
				break;
			/* taken off already: a faulting buffer loses them */
			if (copy_to_user(buf + done, g->bounce,
					 n * sizeof(struct uleds_event))) {
				mutex_unlock(&g->read_lock);
				return done ? done : -EFAULT;
			}
			done += n * sizeof(struct uleds_event);
			if (n < want)
				break;
		}
		mutex_unlock(&g->read_lock);
		if (done)
			return done;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		ret = wait_event_interruptible(g->waitq, READ_ONCE(g->ring.count));
		if (ret)
			return ret;
	}
}

static long uleds_group_ioctl(struct uleds_group *g, struct file *file,
			      unsigned int cmd, void __user *uarg)
{
	struct uleds_group_member m;
	int ret;

	switch (cmd) {
	case ULEDS_IOC_GROUP_ADD:
		if (copy_from_user(&m, uarg, sizeof(m)))
			return -EFAULT;
		ret = uleds_group_add(g, file, &m);
		if (ret == -EALREADY && copy_to_user(uarg, &m, sizeof(m)))
			return -EFAULT;
		return ret;
	case ULEDS_IOC_GROUP_LEAVE:
		if (copy_from_user(&m, uarg, sizeof(m)))
			return -EFAULT;
		return uleds_group_leave(g, m.id);
	case ULEDS_IOC_GROUP_GET:
		return uleds_group_get(g, uarg);
	case ULEDS_IOC_GROUP_CREATE:
		return -EBUSY;
	default:
		/* the LED ioctls: a group is no LED */
		return -ENOTTY;
	}
}

static int uleds_open(struct inode *inode, struct file *file)
{
	struct uleds_device *udev;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;

	INIT_LIST_HEAD(&udev->claim);
	mutex_init(&udev->lock);
	spin_lock_init(&udev->value_lock);
	init_waitqueue_head(&udev->waitq);
	file->private_data = udev;

	/* No llseek, pread or pwrite. */
	return stream_open(inode, file);
}

static int uleds_release(struct inode *inode, struct file *file)
{
	struct uleds_device *udev = file->private_data;

	if (udev->as_group)
		uleds_group_release(udev->as_group);
	/* a member's file is held by its group: never released in one */
	WARN_ON_ONCE(udev->group);
	if (udev->registered)
		uleds_unregister(udev);
#if IS_ENABLED(CONFIG_LEDS_CLASS_MULTICOLOR)
	if (udev->mc_register)
		symbol_put(led_classdev_multicolor_register_ext);
#endif
	mutex_destroy(&udev->lock);
	kvfree(udev->ring.ev);
	kfree(udev);

	return 0;
}

static ssize_t uleds_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct uleds_device *udev = file->private_data;
	struct uleds_user_dev user_dev;
	int ret;

	if (READ_ONCE(udev->as_group))
		return -EINVAL;
	if (count != sizeof(user_dev))
		return READ_ONCE(udev->registered) ? -EBUSY : -EINVAL;
	if (copy_from_user(&user_dev, buf, sizeof(user_dev)))
		return -EFAULT;

	ret = uleds_setup(udev, &user_dev);
	if (ret)
		return ret;
	return count;
}

/*
 * Latest-value mode: the brightness as an int, when it changed. For a
 * multicolour LED, a buffer with room for them also gets the channel
 * intensities as ints after it (see README); an int-sized buffer gets the
 * brightness alone, as mainline.
 */
static ssize_t uleds_read_value(struct uleds_device *udev, char __user *buf,
				size_t count)
{
	int value[1 + ULEDS_MAX_CHANNELS];
	size_t size = sizeof(int);
	ssize_t ret;
	u16 i;

	/* Mainline returns 0 here, which reads as end of file. */
	if (count < sizeof(int))
		return -EINVAL;
	if (count >= (1 + udev->mc.num_colors) * sizeof(int))
		size = (1 + udev->mc.num_colors) * sizeof(int);

	spin_lock_irq(&udev->value_lock);
	if (!udev->registered) {
		ret = -ENODEV;
	} else if (udev->changed) {
		value[0] = udev->brightness;
		for (i = 0; i < udev->mc.num_colors; i++)
			value[1 + i] = udev->intensity[i];
		udev->changed = false;
		ret = size;
	} else {
		ret = 0;
	}
	spin_unlock_irq(&udev->value_lock);

	if (ret > 0 && copy_to_user(buf, value, size))
		return -EFAULT;
	return ret;
}

/*
 * Event mode: as many whole records as fit, oldest first. A record is taken
 * off the ring before it is copied (copy_to_user() may fault and sleep, the
 * ring is under a spinlock): a buffer that faults loses that record.
 */
static ssize_t uleds_read_events(struct uleds_device *udev, char __user *buf,
				 size_t count)
{
	struct uleds_event ev;
	bool got, gone = false;
	size_t done = 0;

	if (count < sizeof(ev))
		return -EINVAL;

	while (count - done >= sizeof(ev)) {
		spin_lock_irq(&udev->value_lock);
		got = uleds_ring_take(&udev->ring, &ev, 1);
		if (!got)
			gone = !udev->registered;
		spin_unlock_irq(&udev->value_lock);

		if (!got)
			break;
		if (copy_to_user(buf + done, &ev, sizeof(ev)))
			return done ? done : -EFAULT;
		done += sizeof(ev);
	}
	/* Before the setup, or nothing to wait for: as in latest-value mode. */
	if (!done && gone)
		return -ENODEV;
	return done;
}

/*
 * What the read of the fd's mode would return. In event mode only records
 * count: the setup's "changed" (the first read of latest-value mode) is
 * never cleared there, and poll reported a read that gives EAGAIN, forever.
 */
static bool uleds_readable(struct uleds_device *udev)
{
	if (READ_ONCE(udev->removed))
		return true;
	if (READ_ONCE(udev->ring.ev))
		return READ_ONCE(udev->ring.count);
	return READ_ONCE(udev->changed);
}

static ssize_t uleds_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct uleds_device *udev = file->private_data;
	struct uleds_group *g = READ_ONCE(udev->as_group);
	ssize_t ret;

	if (g)
		return uleds_group_read(g, file, buf, count);
	for (;;) {
		/* The mode only goes from latest-value to event, never back. */
		if (READ_ONCE(udev->ring.ev))
			ret = uleds_read_events(udev, buf, count);
		else
			ret = uleds_read_value(udev, buf, count);
		if (ret)
			return ret;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;

		ret = wait_event_interruptible(udev->waitq,
					       uleds_readable(udev));
		if (ret)
			return ret;
	}
}

static __poll_t uleds_poll(struct file *file, poll_table *wait)
{
	struct uleds_device *udev = file->private_data;
	struct uleds_group *g = READ_ONCE(udev->as_group);

	if (g) {
		poll_wait(file, &g->waitq, wait);
		return READ_ONCE(g->ring.count) ? EPOLLIN | EPOLLRDNORM : 0;
	}
	poll_wait(file, &udev->waitq, wait);

	if (READ_ONCE(udev->removed))
		return EPOLLHUP;
	return uleds_readable(udev) ? EPOLLIN | EPOLLRDNORM : 0;
}

/*
 * Switches to event mode, or gives it a new ring. The ring is allocated
 * here, in process context, and swapped under value_lock, so the LED core's
 * atomic callers never allocate. Records still waiting in an old ring, and a
 * latest value not read yet, are counted as lost on the next record.
 */
static int uleds_set_event_mode(struct uleds_device *udev,
				const struct uleds_event_mode *mode)
{
	u32 size = mode->ring_size ? mode->ring_size : ULEDS_RING_DEFAULT;
	struct uleds_event *ring, *old;
	int ret;

	if (size > ULEDS_RING_MAX || (mode->flags & ~ULEDS_EVENT_F_BLINK))
		return -EINVAL;

	ring = kvcalloc(size, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret) {
		kvfree(ring);
		return ret;
	}
	if (udev->registered && (mode->flags & ULEDS_EVENT_F_BLINK)) {
		/* blink_set cannot change under a trigger that may be blinking */
		mutex_unlock(&udev->lock);
		kvfree(ring);
		return -EBUSY;
	}
	if (!udev->registered)
		udev->blink_offload = mode->flags & ULEDS_EVENT_F_BLINK;

	spin_lock_irq(&udev->value_lock);
	old = udev->ring.ev;
	udev->ring.pending_lost += udev->ring.count + (udev->changed ? 1 : 0);
	udev->changed = false;
	udev->ring.ev = ring;
	udev->ring.size = size;
	udev->ring.tail = 0;
	udev->ring.count = 0;
	spin_unlock_irq(&udev->value_lock);

	mutex_unlock(&udev->lock);
	kvfree(old);
	return sizeof(struct uleds_event);
}

static int uleds_get_dev(struct uleds_device *udev,
			 struct uleds_user_dev *user_dev)
{
	int ret;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;
	if (udev->registered) {
		memset(user_dev, 0, sizeof(*user_dev));
		strscpy(user_dev->name, udev->name, sizeof(user_dev->name));
		user_dev->max_brightness = udev->mc.led_cdev.max_brightness;
	} else {
		ret = -ENODEV;
	}
	mutex_unlock(&udev->lock);
	return ret;
}

/*
 * The LED goes now, the file stays: every copy of the fd sees POLLHUP, so a
 * holder such as systemd's fd store drops its copy without being told.
 */
static int uleds_dev_remove(struct uleds_device *udev)
{
	struct uleds_group *g = NULL;
	int ret;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;
	if (!udev->registered) {
		ret = -ENODEV;
		goto out;
	}
	uleds_unregister(udev);
	spin_lock_irq(&udev->value_lock);
	udev->registered = false;
	udev->changed = false;
	udev->ring.count = 0;
	WRITE_ONCE(udev->removed, true);
	g = udev->group;
	if (g) {
		/* the group's reader learns it from the group */
		uleds_push(udev, ULEDS_EVENT_REMOVED, 0, 0, 0);
		kref_get(&g->ref);
	}
	spin_unlock_irq(&udev->value_lock);
	wake_up_interruptible_poll(&udev->waitq,
				   EPOLLHUP | EPOLLIN | EPOLLRDNORM);
out:
	mutex_unlock(&udev->lock);
	if (g)
		uleds_group_forget(g, udev);
	return ret;
}

static long uleds_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct uleds_device *udev = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct uleds_user_dev user_dev;
	struct uleds_event_mode mode;
	struct uleds_multicolor mc;
	struct uleds_trigger trig;
	int ret;

	if (READ_ONCE(udev->as_group))
		return uleds_group_ioctl(udev->as_group, file, cmd, uarg);
	switch (cmd) {
	case ULEDS_IOC_DEV_SETUP:
		if (copy_from_user(&user_dev, uarg, sizeof(user_dev)))
			return -EFAULT;
		return uleds_setup(udev, &user_dev);
	case ULEDS_IOC_SET_DEFAULT_TRIGGER:
		if (copy_from_user(&trig, uarg, sizeof(trig)))
			return -EFAULT;
		return uleds_set_trigger(udev, &trig);
	case ULEDS_IOC_SET_EVENT_MODE:
		if (copy_from_user(&mode, uarg, sizeof(mode)))
			return -EFAULT;
		return uleds_set_event_mode(udev, &mode);
	case ULEDS_IOC_SET_MULTICOLOR:
		if (copy_from_user(&mc, uarg, sizeof(mc)))
			return -EFAULT;
		return uleds_set_multicolor(udev, &mc);
	case ULEDS_IOC_GET_DEV:
		ret = uleds_get_dev(udev, &user_dev);
		if (!ret && copy_to_user(uarg, &user_dev, sizeof(user_dev)))
			ret = -EFAULT;
		return ret;
	case ULEDS_IOC_DEV_REMOVE:
		return uleds_dev_remove(udev);
	case ULEDS_IOC_GROUP_CREATE:
		if (copy_from_user(&mode, uarg, sizeof(mode)))
			return -EFAULT;
		return uleds_group_create(udev, &mode);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations uleds_fops = {
	.owner		= THIS_MODULE,
	.open		= uleds_open,
	.release	= uleds_release,
	.read		= uleds_read,
	.write		= uleds_write,
	.poll		= uleds_poll,
	.unlocked_ioctl	= uleds_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};

static struct miscdevice uleds_misc = {
	.minor		= MISC_DYNAMIC_MINOR,
	.name		= ULEDS_NAME,
	.fops		= &uleds_fops,
};

module_misc_device(uleds_misc);

MODULE_DESCRIPTION("User space LED class devices (uleds ABI with ioctls)");
MODULE_LICENSE("GPL");
