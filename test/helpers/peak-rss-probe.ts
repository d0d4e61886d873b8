// Preloaded into a child (`node --import <this> …`): at exit it writes the process's own peak
// resident set size (KiB) to the file named by KORTTY_TEST_PEAK_RSS_FILE, so a test can bound the
// memory a whole command used, however briefly. Not ru_maxrss: on Linux that also counts the test
// runner the child was forked from, and a runner grown by earlier suites failed every bound.
import { writeFileSync } from 'node:fs';
import { ownPeakRssKb } from '../../src/util/peak-rss.js';

const out = process.env.KORTTY_TEST_PEAK_RSS_FILE;
if (out) process.on('exit', () => writeFileSync(out, String(ownPeakRssKb())));
