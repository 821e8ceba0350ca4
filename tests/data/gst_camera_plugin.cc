// What ardupilot_gazebo's GstCameraPlugin reads from the <plugin> block in a camera <sensor>, read as
// it reads it, with libsdformat (sdf::Element::HasElement / Get<T>).
//
// Source: ArduPilot/ardupilot_gazebo src/GstCameraPlugin.cc, commit 082a0fe231f6e63bc8d1598f1cba461d9e2ea7f5:
//   GstCameraPlugin::Configure: the entity must be a sensor (Sensor(_entity).Valid, else "must be attached
//     to a camera sensor"); udp_host (default "127.0.0.1"), udp_port (Get<int>, default 5600);
//     rtmp_location, else use_basic_pipeline (Get<bool>, default false): the pipeline; use_cuda (Get<bool>,
//     default false); image_topic, enable_topic (default empty).
//   GstCameraPlugin::PreUpdate: an empty image_topic is the sensor's topic, an empty enable_topic the
//     sensor's topic + "/enable_streaming".
//   GstCameraPlugin::Impl::OnImage: the image's bytes are read as 8-bit RGB (CV_8UC3, COLOR_RGB2YUV_I420).
// Plugins below <sensor> are the sensor's systems (gz-sim SdfEntityCreator loads sensor->Plugins() on the
// sensor entity); a GstCameraPlugin at the model's level gets the model entity and refuses it.
//
// usage: gst_camera_plugin MODEL.sdf
// prints: "camera <link> <sensor> <type> <pixel format> <topic>" for every camera-like sensor,
//         "gst <link> <sensor> <udp_host> <udp_port> <pipeline> <use_cuda> <image topic> <enable topic>"
//           for each GstCameraPlugin in a sensor (pipeline: rtmp | basic | mpeg2ts),
//         "model-level <filename>" for a GstCameraPlugin block directly in the model.
#include <iostream>
#include <string>

#include <sdf/sdf.hh>

static bool IsGst(const sdf::ElementPtr &p)
{
  return p->Get<std::string>("filename") == "GstCameraPlugin" || p->Get<std::string>("name") == "GstCameraPlugin";
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  sdf::Root root;
  sdf::Errors errors = root.Load(argv[1]);
  if (!errors.empty() || root.Model() == nullptr)
  {
    for (const auto &e : errors)
      std::cout << argv[1] << ": " << e << std::endl;
    return 1;
  }
  const sdf::Model *model = root.Model();
  sdf::ElementPtr melem = model->Element();
  for (sdf::ElementPtr p = melem->HasElement("plugin") ? melem->GetElement("plugin") : nullptr; p;
       p = p->GetNextElement("plugin"))
    if (IsGst(p))
      std::cout << "model-level " << p->Get<std::string>("filename") << std::endl;
  for (uint64_t i = 0; i < model->LinkCount(); ++i)
  {
    const sdf::Link *link = model->LinkByIndex(i);
    for (uint64_t j = 0; j < link->SensorCount(); ++j)
    {
      const sdf::Sensor *sensor = link->SensorByIndex(j);
      const sdf::Camera *cam = sensor->CameraSensor();
      if (cam)
        std::cout << "camera " << link->Name() << " " << sensor->Name() << " " << sensor->TypeStr() << " "
                  << cam->PixelFormatStr() << " " << (sensor->Topic().empty() ? "-" : sensor->Topic()) << std::endl;
      sdf::ElementPtr s = sensor->Element();
      for (sdf::ElementPtr p = s->HasElement("plugin") ? s->GetElement("plugin") : nullptr; p;
           p = p->GetNextElement("plugin"))
      {
        if (!IsGst(p))
          continue;
        // Configure
        std::string udpHost = "127.0.0.1";
        int udpPort = 5600;
        std::string pipeline = "mpeg2ts";
        bool useCuda = false;
        std::string imageTopic, enableTopic;
        if (p->HasElement("udp_host"))
          udpHost = p->Get<std::string>("udp_host");
        if (p->HasElement("udp_port"))
          udpPort = p->Get<int>("udp_port");
        if (p->HasElement("rtmp_location"))
          pipeline = "rtmp";
        else if (p->HasElement("use_basic_pipeline"))
          pipeline = p->Get<bool>("use_basic_pipeline") ? "basic" : "mpeg2ts";
        if (p->HasElement("use_cuda"))
          useCuda = p->Get<bool>("use_cuda");
        if (p->HasElement("image_topic"))
          imageTopic = p->Get<std::string>("image_topic");
        if (p->HasElement("enable_topic"))
          enableTopic = p->Get<std::string>("enable_topic");
        // PreUpdate: the defaults from the sensor's topic
        if (imageTopic.empty())
          imageTopic = sensor->Topic();
        if (enableTopic.empty())
          enableTopic = sensor->Topic() + "/enable_streaming";
        std::cout << "gst " << link->Name() << " " << sensor->Name() << " " << p->Get<std::string>("filename") << " "
                  << udpHost << " " << udpPort << " " << pipeline << " " << useCuda << " "
                  << (imageTopic.empty() ? "-" : imageTopic) << " " << enableTopic << std::endl;
      }
    }
  }
  return 0;
}
