// SPDX-License-Identifier: GPL-2.0
/*
 * ledtrig-many: many LED triggers with long names, for uledsd's kernel tests.
 *
 * Every LED's trigger attribute lists every trigger. With the default 200 triggers named
 * "uledsd-test-trigger-with-a-long-name-NNN" it grows past 8 KiB: since Linux 5.6 that file
 * is a bin attribute without the page limit, read a page per read() call, and a reader that
 * takes one read() of 4 KiB sees a cut list. The triggers do nothing when selected.
 */
#include <linux/leds.h>
#include <linux/module.h>
#include <linux/slab.h>

static unsigned int count = 200;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "how many triggers to register (default 200)");

static struct led_trigger **triggers;
static char **names;
static unsigned int registered;

static void ledtrig_many_remove(void)
{
	while (registered) {
		registered--;
		led_trigger_unregister_simple(triggers[registered]);
		kfree(names[registered]);
	}
	kfree(triggers);
	kfree(names);
}

static int __init ledtrig_many_init(void)
{
	int err = -ENOMEM;

	triggers = kcalloc(count, sizeof(*triggers), GFP_KERNEL);
	names = kcalloc(count, sizeof(*names), GFP_KERNEL);
	if (!triggers || !names)
		goto fail;
	/* The trigger keeps a pointer to its name: one allocation each, freed after it. */
	for (registered = 0; registered < count; registered++) {
		unsigned int i = registered;

		names[i] = kasprintf(GFP_KERNEL,
				     "uledsd-test-trigger-with-a-long-name-%03u", i);
		if (!names[i])
			goto fail;
		led_trigger_register_simple(names[i], &triggers[i]);
		if (!triggers[i]) {
			/* the LED core logged why (a name taken: -EEXIST) */
			kfree(names[i]);
			err = -EBUSY;
			goto fail;
		}
	}
	return 0;

fail:
	ledtrig_many_remove();
	return err;
}

static void __exit ledtrig_many_exit(void)
{
	ledtrig_many_remove();
}

module_init(ledtrig_many_init);
module_exit(ledtrig_many_exit);

MODULE_DESCRIPTION("Many LED triggers with long names (uledsd's kernel tests)");
MODULE_LICENSE("GPL");
