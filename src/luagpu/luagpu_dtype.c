/* luagpu_dtype.c - Buffer elements of each type, to and from Lua
 * (luagpu/luagpu_internal.h). */
#include "luagpu/luagpu_internal.h"

#include <lauxlib.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/bf16.h"
#include "lab/probdecl.h"

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [LUAGPU_F32] = {"f32", 4}, [LUAGPU_I32] = {"i32", 4}, [LUAGPU_BF16] = {"bf16", 2},
    [LUAGPU_F64] = {"f64", 8}, [LUAGPU_U32] = {"u32", 4}, [LUAGPU_U8] = {"u8", 1},
};

const char *luagpu_dtype_name(luagpu_dtype dt)
{
    return dtypes[dt].name;
}

size_t luagpu_dtype_size(luagpu_dtype dt)
{
    return dtypes[dt].size;
}

luagpu_dtype luagpu_dtype_of(decl_type type)
{
    switch (type) {
    case DT_F64: return LUAGPU_F64;
    case DT_I32: return LUAGPU_I32;
    case DT_U32: return LUAGPU_U32;
    case DT_U8: return LUAGPU_U8;
    case DT_BF16: return LUAGPU_BF16;
    default: return LUAGPU_F32;
    }
}

bool luagpu_dtype_parse(const char *name, luagpu_dtype *dt)
{
    for (size_t i = 0; name && i < sizeof dtypes / sizeof dtypes[0]; i++)
        if (strcmp(dtypes[i].name, name) == 0) {
            *dt = (luagpu_dtype)i;
            return true;
        }
    return false;
}

/* An integer element in [lo, hi]. */
static bool integer_in(lua_State *L, int idx, lua_Integer lo, lua_Integer hi, lua_Integer *v,
                       const char **why)
{
    int ok = 0;
    *v = lua_tointegerx(L, idx, &ok);
    if (!ok) {
        *why = lua_isnumber(L, idx) ? "is not a whole number" : "is not a number";
        return false;
    }
    if (*v < lo || *v > hi) {
        *why = "is out of the type's range";
        return false;
    }
    return true;
}

bool luagpu_elem_encode(lua_State *L, int idx, luagpu_dtype dt, unsigned char *out,
                        const char **why)
{
    lua_Integer iv = 0;
    int ok = 0;
    lua_Number v = 0;
    if (dt == LUAGPU_F32 || dt == LUAGPU_F64 || dt == LUAGPU_BF16) {
        v = lua_tonumberx(L, idx, &ok);
        if (!ok) {
            *why = "is not a number";
            return false;
        }
    }
    switch (dt) {
    case LUAGPU_F32: {
        float f = (float)v;
        memcpy(out, &f, 4);
        return true;
    }
    case LUAGPU_F64: {
        double d = (double)v;
        memcpy(out, &d, 8);
        return true;
    }
    case LUAGPU_BF16: {
        uint16_t h = bf16_from_float((float)v);
        memcpy(out, &h, 2);
        return true;
    }
    case LUAGPU_I32: {
        if (!integer_in(L, idx, INT32_MIN, INT32_MAX, &iv, why))
            return false;
        int32_t x = (int32_t)iv;
        memcpy(out, &x, 4);
        return true;
    }
    case LUAGPU_U32: {
        if (!integer_in(L, idx, 0, (lua_Integer)UINT32_MAX, &iv, why))
            return false;
        uint32_t x = (uint32_t)iv;
        memcpy(out, &x, 4);
        return true;
    }
    case LUAGPU_U8:
        if (!integer_in(L, idx, 0, 255, &iv, why))
            return false;
        out[0] = (unsigned char)iv;
        return true;
    }
    *why = "has an unknown type";
    return false;
}

void luagpu_elem_push(lua_State *L, luagpu_dtype dt, const unsigned char *in)
{
    switch (dt) {
    case LUAGPU_F32: {
        float f;
        memcpy(&f, in, 4);
        lua_pushnumber(L, (lua_Number)f);
        return;
    }
    case LUAGPU_F64: {
        double d;
        memcpy(&d, in, 8);
        lua_pushnumber(L, (lua_Number)d);
        return;
    }
    case LUAGPU_BF16: {
        uint16_t h;
        memcpy(&h, in, 2);
        lua_pushnumber(L, (lua_Number)bf16_to_float(h));
        return;
    }
    case LUAGPU_I32: {
        int32_t x;
        memcpy(&x, in, 4);
        lua_pushinteger(L, x);
        return;
    }
    case LUAGPU_U32: {
        uint32_t x;
        memcpy(&x, in, 4);
        lua_pushinteger(L, (lua_Integer)x);
        return;
    }
    case LUAGPU_U8:
        lua_pushinteger(L, in[0]);
        return;
    }
    lua_pushnil(L);
}
