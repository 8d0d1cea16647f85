'use strict';
// The .trashinfo format and trash-entry names (freedesktop trash spec 1.0), over Buffers
// so that non-UTF-8 names stay exact. The Python engine implements the same rules and
// both pass tests/vectors/.

const NAME_MAX = 255;
const INFO_SUFFIX = '.trashinfo';
// The longest name in files/ whose info file name still fits in NAME_MAX.
const ENTRY_NAME_MAX = NAME_MAX - INFO_SUFFIX.length;
const HEX = '0123456789ABCDEF';

function isUnreserved(byte) {
  return (
    (byte >= 0x41 && byte <= 0x5a) || // A-Z
    (byte >= 0x61 && byte <= 0x7a) || // a-z
    (byte >= 0x30 && byte <= 0x39) || // 0-9
    byte === 0x2d || byte === 0x2e || byte === 0x5f || byte === 0x7e || byte === 0x2f // - . _ ~ /
  );
}

function encodePath(raw) {
  let out = '';
  for (const byte of raw) {
    out += isUnreserved(byte) ? String.fromCharCode(byte) : '%' + HEX[byte >> 4] + HEX[byte & 15];
  }
  return Buffer.from(out, 'latin1');
}

function hexValue(byte) {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37;
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57;
  return -1;
}

function decodePath(encoded) {
  const out = [];
  let i = 0;
  while (i < encoded.length) {
    const byte = encoded[i];
    const high = i + 2 < encoded.length ? hexValue(encoded[i + 1]) : -1;
    const low = i + 2 < encoded.length ? hexValue(encoded[i + 2]) : -1;
    if (byte === 0x25 && high >= 0 && low >= 0) {
      out.push(high * 16 + low);
      i += 3;
    } else {
      out.push(byte);
      i += 1;
    }
  }
  return Buffer.from(out);
}

function pad(n) {
  return n < 10 ? '0' + n : String(n);
}

function deletionDate(now) {
  const d = now === undefined ? new Date() : new Date(now);
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

// pathField is what goes after Path= (absolute, or relative to a topdir), as bytes.
function render(pathField, date) {
  return Buffer.concat([
    Buffer.from('[Trash Info]\nPath='),
    encodePath(pathField),
    Buffer.from('\nDeletionDate=' + date + '\n'),
  ]);
}

// Cut name to at most limit bytes without splitting a UTF-8 sequence.
function truncate(name, limit) {
  if (name.length <= limit) return name;
  let cut = name.subarray(0, limit);
  let end = cut.length;
  while (end > 0 && (cut[end - 1] & 0xc0) === 0x80) end -= 1;
  if (end > 0 && cut[end - 1] >= 0xc0) {
    const lead = cut[end - 1];
    const need = lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
    if (cut.length - (end - 1) < need) cut = cut.subarray(0, end - 1);
  }
  return cut.length ? cut : name.subarray(0, limit);
}

// The entry name in files/: the name itself (token undefined), else name + '.' + token,
// cut so that its info file name fits NAME_MAX.
function entryName(basename, token) {
  if (token === undefined || token === null) return truncate(basename, ENTRY_NAME_MAX);
  const suffix = Buffer.from('.' + token);
  return Buffer.concat([truncate(basename, ENTRY_NAME_MAX - suffix.length), suffix]);
}

// A fresh suffix for a name already taken: 8 random hex digits (see info.py): one more
// probe whatever came before, where counting up probed every earlier number.
function collisionToken() {
  return require('crypto').randomBytes(4).toString('hex');
}

module.exports = {
  INFO_SUFFIX,
  encodePath,
  decodePath,
  deletionDate,
  render,
  entryName,
  collisionToken,
};
