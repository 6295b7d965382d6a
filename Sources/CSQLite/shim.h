// SQLite from Debian's libsqlite3-dev, for SluiceCache's SQLiteCacheStore.
#include <sqlite3.h>
