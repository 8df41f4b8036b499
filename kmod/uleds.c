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
#include <linux/ctype.h>
#include <linux/fs.h>
#include <linux/leds.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

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

struct uleds_device {
	struct led_classdev cdev;
	char name[LED_MAX_NAME_SIZE];
	/* default trigger; cdev.default_trigger points here when set */
	char trigger[LED_MAX_NAME_SIZE];
	/* serializes setup and trigger changes */
	struct mutex lock;
	/* protects the fields below: brightness_set() may run in atomic context */
	spinlock_t value_lock;
	bool registered;
	bool changed;
	int brightness;
	wait_queue_head_t waitq;
};

static struct miscdevice uleds_misc;

/*
 * Held across every registration and unregistration of our LEDs, so a name
 * check and the registration it allows are atomic with respect to the other
 * uleds LEDs.
 */
static DEFINE_MUTEX(uleds_names_lock);

static struct uleds_device *to_uleds(struct led_classdev *cdev)
{
	return container_of(cdev, struct uleds_device, cdev);
}

static void uleds_brightness_set(struct led_classdev *cdev,
				 enum led_brightness value)
{
	struct uleds_device *udev = to_uleds(cdev);
	unsigned long flags;
	bool wake = false;

	spin_lock_irqsave(&udev->value_lock, flags);
	if (udev->brightness != value) {
		udev->brightness = value;
		udev->changed = true;
		wake = true;
	}
	spin_unlock_irqrestore(&udev->value_lock, flags);

	if (wake)
		wake_up_interruptible(&udev->waitq);
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

static bool uleds_trigger_name_valid(const char *name)
{
	size_t len = strnlen(name, LED_MAX_NAME_SIZE);
	size_t i;

	if (len == 0 || len == LED_MAX_NAME_SIZE)
		return false;
	/* "default" means "the LED's default trigger" in sysfs: not a name */
	if (!strcmp(name, "default"))
		return false;
	for (i = 0; i < len; i++)
		/* isascii: the kernel's ctype classifies Latin-1 letters too */
		if (!(isascii(name[i]) && isalnum(name[i])) &&
		    name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

#ifdef ULEDS_CHECK_NAMES
/*
 * The LED class, learnt from the first LED we register: the class is not
 * exported, and our own LEDs are the only ones whose device we may touch
 * without racing with their unregistration. Protected by uleds_names_lock.
 * Typed after struct device, whose class pointer became const in 6.4.
 */
static typeof_member(struct device, class) uleds_leds_class;

static bool uleds_name_taken(const char *name)
{
	struct led_classdev *cdev;
	struct device *dev;
	bool taken = false;

	if (uleds_leds_class) {
		dev = class_find_device_by_name(uleds_leds_class, name);
		if (!dev)
			return false;
		put_device(dev);
		return true;
	}

	/*
	 * No class yet: compare the names drivers registered with. Catches
	 * every LED registered without init_data; LEDs whose name the core
	 * composed are caught after the fact in uleds_register().
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

static int uleds_register(struct uleds_device *udev)
{
	struct device *parent = uleds_misc.this_device;
	int ret;

	mutex_lock(&uleds_names_lock);
	if (uleds_name_taken(udev->name)) {
		ret = -EEXIST;
		goto out;
	}

	ret = led_classdev_register(parent, &udev->cdev);
	if (ret)
		goto out;
	uleds_leds_class = udev->cdev.dev->class;

	/*
	 * Lost a race with a driver outside uleds, or missed a composed
	 * name: the core renamed our LED. Take it back at once.
	 */
	if (strcmp(dev_name(udev->cdev.dev), udev->name)) {
		led_classdev_unregister(&udev->cdev);
		ret = -EEXIST;
	}
out:
	mutex_unlock(&uleds_names_lock);
	return ret;
}
#else
static int uleds_register(struct uleds_device *udev)
{
	int ret;

	udev->cdev.flags |= LED_REJECT_NAME_CONFLICT;

	mutex_lock(&uleds_names_lock);
	ret = led_classdev_register(uleds_misc.this_device, &udev->cdev);
	mutex_unlock(&uleds_names_lock);

	return ret;
}
#endif

static void uleds_unregister(struct uleds_device *udev)
{
	mutex_lock(&uleds_names_lock);
	led_classdev_unregister(&udev->cdev);
	mutex_unlock(&uleds_names_lock);
}

static int uleds_setup(struct uleds_device *udev,
		       const struct uleds_user_dev *user_dev)
{
	int ret;

	ret = mutex_lock_interruptible(&udev->lock);
	if (ret)
		return ret;

	if (udev->registered) {
		ret = -EBUSY;
		goto out;
	}
	if (!uleds_name_valid(user_dev->name) || user_dev->max_brightness <= 0) {
		ret = -EINVAL;
		goto out;
	}

	/* A failed attempt may leave core state behind: start clean. */
	memset(&udev->cdev, 0, sizeof(udev->cdev));
	strscpy(udev->name, user_dev->name, sizeof(udev->name));
	udev->cdev.name = udev->name;
	udev->cdev.max_brightness = user_dev->max_brightness;
	udev->cdev.brightness_set = uleds_brightness_set;
	if (udev->trigger[0])
		udev->cdev.default_trigger = udev->trigger;

	ret = uleds_register(udev);
	if (ret)
		goto out;

	/* The first read returns the initial brightness at once. */
	spin_lock_irq(&udev->value_lock);
	udev->registered = true;
	udev->changed = true;
	spin_unlock_irq(&udev->value_lock);
	wake_up_interruptible(&udev->waitq);
out:
	mutex_unlock(&udev->lock);
	return ret;
}

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
	/*
	 * The core attaches a default trigger only to an LED without one,
	 * both here and when a trigger module registers later: drop the
	 * current trigger first, then let the core look the new one up.
	 */
	led_trigger_remove(&udev->cdev);

	down_write(&udev->cdev.trigger_lock);
	if (none) {
		udev->cdev.default_trigger = NULL;
	} else {
		strscpy(udev->trigger, trig->name, sizeof(udev->trigger));
		udev->cdev.default_trigger = udev->trigger;
	}
	up_write(&udev->cdev.trigger_lock);

	led_trigger_set_default(&udev->cdev);
#endif
out:
	mutex_unlock(&udev->lock);
	return ret;
}

static int uleds_open(struct inode *inode, struct file *file)
{
	struct uleds_device *udev;

	udev = kzalloc(sizeof(*udev), GFP_KERNEL);
	if (!udev)
		return -ENOMEM;

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

	if (udev->registered)
		uleds_unregister(udev);
	mutex_destroy(&udev->lock);
	kfree(udev);

	return 0;
}

static ssize_t uleds_write(struct file *file, const char __user *buf,
			   size_t count, loff_t *ppos)
{
	struct uleds_device *udev = file->private_data;
	struct uleds_user_dev user_dev;
	int ret;

	if (count != sizeof(user_dev))
		return READ_ONCE(udev->registered) ? -EBUSY : -EINVAL;
	if (copy_from_user(&user_dev, buf, sizeof(user_dev)))
		return -EFAULT;

	ret = uleds_setup(udev, &user_dev);
	if (ret)
		return ret;
	return count;
}

static ssize_t uleds_read(struct file *file, char __user *buf, size_t count,
			  loff_t *ppos)
{
	struct uleds_device *udev = file->private_data;
	int value;
	int ret;

	/* Mainline returns 0 here, which reads as end of file. */
	if (count < sizeof(value))
		return -EINVAL;

	for (;;) {
		spin_lock_irq(&udev->value_lock);
		if (!udev->registered) {
			ret = -ENODEV;
		} else if (udev->changed) {
			value = udev->brightness;
			udev->changed = false;
			ret = 1;
		} else {
			ret = 0;
		}
		spin_unlock_irq(&udev->value_lock);

		if (ret < 0)
			return ret;
		if (ret)
			break;
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;

		ret = wait_event_interruptible(udev->waitq,
					       READ_ONCE(udev->changed));
		if (ret)
			return ret;
	}

	if (copy_to_user(buf, &value, sizeof(value)))
		return -EFAULT;
	return sizeof(value);
}

static __poll_t uleds_poll(struct file *file, poll_table *wait)
{
	struct uleds_device *udev = file->private_data;

	poll_wait(file, &udev->waitq, wait);

	return READ_ONCE(udev->changed) ? EPOLLIN | EPOLLRDNORM : 0;
}

static long uleds_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct uleds_device *udev = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct uleds_user_dev user_dev;
	struct uleds_trigger trig;

	switch (cmd) {
	case ULEDS_IOC_DEV_SETUP:
		if (copy_from_user(&user_dev, uarg, sizeof(user_dev)))
			return -EFAULT;
		return uleds_setup(udev, &user_dev);
	case ULEDS_IOC_SET_DEFAULT_TRIGGER:
		if (copy_from_user(&trig, uarg, sizeof(trig)))
			return -EFAULT;
		return uleds_set_trigger(udev, &trig);
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
