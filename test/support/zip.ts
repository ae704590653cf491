import { crc32 } from 'node:zlib';

/** Zip archives for the EPUB tests, written byte by byte. */

export interface ZipEntry {
	name: string;
	/** Raw DEFLATE data, or the stored bytes when `size` is left out. */
	data: Uint8Array;
	/** Unpacked size and CRC-32, for deflated entries. */
	size?: number;
	crc?: number;
}

/** A zip archive written byte by byte, so an entry can hold deflate data made without its content in memory. */
export function zipOf(entries: ZipEntry[]): Uint8Array {
	const parts: Buffer[] = [];
	const central: Buffer[] = [];
	let offset = 0;
	for (const entry of entries) {
		const name = Buffer.from(entry.name, 'utf8');
		const deflated = entry.size !== undefined;
		const size = entry.size ?? entry.data.length;
		const crc = entry.crc ?? crc32(entry.data);
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		local.writeUInt16LE(20, 4);
		local.writeUInt16LE(deflated ? 8 : 0, 8);
		local.writeUInt16LE(0x21, 12); // 1980-01-01
		local.writeUInt32LE(crc, 14);
		local.writeUInt32LE(entry.data.length, 18);
		local.writeUInt32LE(size, 22);
		local.writeUInt16LE(name.length, 26);
		const header = Buffer.alloc(46);
		header.writeUInt32LE(0x02014b50, 0);
		header.writeUInt16LE(20, 4);
		header.writeUInt16LE(20, 6);
		header.writeUInt16LE(deflated ? 8 : 0, 10);
		header.writeUInt16LE(0x21, 14);
		header.writeUInt32LE(crc, 16);
		header.writeUInt32LE(entry.data.length, 20);
		header.writeUInt32LE(size, 24);
		header.writeUInt16LE(name.length, 28);
		header.writeUInt32LE(offset, 42);
		parts.push(local, name, Buffer.from(entry.data));
		central.push(header, name);
		offset += local.length + name.length + entry.data.length;
	}
	const directory = Buffer.concat(central);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(directory.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...parts, directory, end]);
}
