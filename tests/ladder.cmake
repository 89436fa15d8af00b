# (filled in with the chapters it names)
