#include "source.h"
