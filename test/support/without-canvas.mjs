// Preloaded (node --import) to run as the bundle does, where the optional @napi-rs/canvas is absent:
// every attempt to load it fails as a missing module would.
import Module from 'node:module';

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  if (request === '@napi-rs/canvas' || request.startsWith('@napi-rs/canvas/')) {
    throw Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
  }
  return resolve.call(this, request, ...rest);
};
