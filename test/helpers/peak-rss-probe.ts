// Preloaded into a child (`node --import <this> …`): at exit it writes the process's peak resident
// set size (getrusage ru_maxrss, KiB) to the file named by KORTTY_TEST_PEAK_RSS_FILE, so a test can
// bound the memory a whole command used, however briefly.
import { writeFileSync } from 'node:fs';

const out = process.env.KORTTY_TEST_PEAK_RSS_FILE;
if (out) process.on('exit', () => writeFileSync(out, String(process.resourceUsage().maxRSS)));
