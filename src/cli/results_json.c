#include "cli/results_json.h"

#include <stdio.h>
#include <stdlib.h>

/* Encodes a message with the protocol's encoder and returns its payload
 * object, so the JSON seen by scripts matches the wire format exactly. */
static cJSON *message_object(const proto_msg *m)
{
    char *line = proto_encode(m);
    if (!line)
        return cJSON_CreateNull();
    cJSON *o = cJSON_Parse(line);
    free(line);
    if (!o)
        return cJSON_CreateNull();
    cJSON_DeleteItemFromObjectCaseSensitive(o, "type");
    return o;
}

cJSON *results_json(const char *lab_id, const device_info *dev, const run_result *rows,
                    size_t n, const run_fault *fault)
{
    static proto_msg m;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "lab", lab_id);
    if (dev) {
        m.type = MSG_HELLO;
        m.u.hello = *dev;
        cJSON *h = message_object(&m);
        cJSON *d = cJSON_DetachItemFromObjectCaseSensitive(h, "device");
        cJSON_AddItemToObject(root, "device", d ? d : h);
        if (d)
            cJSON_Delete(h);
    } else {
        cJSON_AddNullToObject(root, "device");
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "results");
    for (size_t i = 0; i < n; i++) {
        m.type = MSG_RESULT;
        m.u.result = rows[i];
        cJSON_AddItemToArray(arr, message_object(&m));
    }
    if (fault) {
        m.type = MSG_FAULT;
        m.u.fault = *fault;
        cJSON_AddItemToObject(root, "fault", message_object(&m));
    } else {
        cJSON_AddNullToObject(root, "fault");
    }
    return root;
}

void results_json_print(cJSON *root)
{
    char *txt = root ? cJSON_Print(root) : NULL;
    if (txt)
        puts(txt);
    free(txt);
    cJSON_Delete(root);
}
