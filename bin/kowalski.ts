#!/usr/bin/env node
console.log('kowalski: the CLI is being built');
