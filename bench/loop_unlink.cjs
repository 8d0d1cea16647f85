// Child script: fs.unlinkSync over `count` fresh files, timed in process.
// Run with and without the Node preload. Making the files is timed apart: a trash pays
// for making one file (its info file) per deletion, so this is the filesystem's floor.
// Prints {"seconds": ..., "create_seconds": ...} (whole loops) as its last line.
'use strict';
const fs = require('fs');
const path = require('path');

const [directory, countText] = process.argv.slice(2);
const count = Number(countText);
fs.mkdirSync(directory);
// Names unique across rounds: same-named items would make the trash pick suffixes.
const stem = path.basename(directory);
const paths = [];
for (let index = 0; index < count; index++) {
  paths.push(path.join(directory, `${stem}-${String(index).padStart(5, '0')}`));
}
const start = process.hrtime.bigint();
for (const file of paths) {
  fs.writeFileSync(file, 'bench\n', { flag: 'wx' });
}
const made = process.hrtime.bigint();
for (const file of paths) {
  fs.unlinkSync(file);
}
const end = process.hrtime.bigint();
const seconds = Number(end - made) / 1e9;
console.log(JSON.stringify({ seconds, create_seconds: Number(made - start) / 1e9 }));
