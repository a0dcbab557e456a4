// Compiles the channel header once so its _Static_asserts are checked on every build, even in
// configurations where no probe is built.
#include "lagmon_channel.h"
