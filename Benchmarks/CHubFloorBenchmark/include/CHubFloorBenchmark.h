int c_hub_floor_dummy(void);
