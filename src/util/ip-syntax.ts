// node:net's isIP only parses text (no socket, no lookup); it is re-exported here so the pure guard
// need not import node:net, which the core-imports test keeps out of src/guard.
export { isIP } from 'node:net';
